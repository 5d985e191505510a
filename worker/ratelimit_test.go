package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/worker"
)

// GitHub asking to wait longer than a few seconds (a secondary limit without
// Retry-After: at least a minute, growing) puts the run back in the queue
// with a due time instead of holding the worker, and the run says so, with
// the time, on its timeline and its check run. It is dispatched once GitHub
// answers again, never failed for it.
func TestDispatchWaitsForGitHubRateLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, map[string]string{".github/workflows/chakshu.yml": action.WorkflowTemplate})
		const dispatches = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: dispatches, Kind: ghsimtest.FaultSecondaryRateLimit, NoRetryAfter: true, Times: 2})
		r := f.enqueue(t)
		d := f.dispatcher(t, "w1")

		start := time.Now()
		f.claimAndDispatch(t, d, "w1")
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("the dispatch held the worker %s", took)
		}
		got := db.Run.GetX(ctx, r.ID)
		if got.Status != run.StatusQueued || got.LeaseOwner != "" || got.NextAttemptAt == nil {
			t.Fatalf("run after a secondary limit: %s owner %q due %v", got.Status, got.LeaseOwner, got.NextAttemptAt)
		}
		if wait := got.NextAttemptAt.Sub(start); wait < 59*time.Second || wait > 62*time.Second {
			t.Fatalf("due in %s, want a minute (GitHub: at least one minute without Retry-After)", wait)
		}
		want := worker.WaitingText(*got.NextAttemptAt)
		if !strings.Contains(want, got.NextAttemptAt.UTC().Format("15:04:05")) {
			t.Fatalf("waiting text %q names no time", want)
		}
		if n := db.RunEvent.Query().Where(runevent.Message(want)).CountX(ctx); n != 1 {
			t.Fatalf("%d timeline entries saying %q", n, want)
		}
		if c := f.checkRun(t, got.CheckRunID); c.Title != "Waiting for GitHub" || c.Summary != want || c.Status == "completed" {
			t.Fatalf("check run while waiting: %+v", c)
		}
		// Not claimable before it is due.
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w1", time.Now(), 0); id != 0 {
			t.Fatal("a waiting run was claimed before its due time")
		}

		// The second limit in a row waits longer (two minutes).
		start = time.Now()
		if id, err := queue.Claim(ctx, db, queue.QueuedRuns, "w1", got.NextAttemptAt.Add(time.Second), 0); err != nil || id != r.ID {
			t.Fatalf("claim when due: %d %v", id, err)
		}
		d.Dispatch(ctx, r.ID)
		got = db.Run.GetX(ctx, r.ID)
		if wait := got.NextAttemptAt.Sub(start); got.Status != run.StatusQueued || wait < 119*time.Second || wait > 122*time.Second {
			t.Fatalf("second limit: %s due in %s, want two minutes", got.Status, wait)
		}

		// GitHub answers again: dispatched, once.
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w1", got.NextAttemptAt.Add(time.Second), 0); id != r.ID {
			t.Fatal("not claimable when due")
		}
		d.Dispatch(ctx, r.ID)
		if got := db.Run.GetX(ctx, r.ID); got.Status != run.StatusDispatched {
			t.Fatalf("after the limit: %s (%s)", got.Status, got.FailureReason)
		}
		if n := len(f.sim.Runs()); n != 1 {
			t.Fatalf("%d workflow runs, want 1", n)
		}
	})
}

// A primary limit (x-ratelimit-remaining 0) waits for x-ratelimit-reset.
func TestDispatchWaitsForPrimaryReset(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, map[string]string{".github/workflows/chakshu.yml": action.WorkflowTemplate})
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", Kind: ghsimtest.FaultPrimaryRateLimit, RetryAfter: 600, Times: 1})
		r := f.enqueue(t)
		start := time.Now()
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		got := db.Run.GetX(ctx, r.ID)
		if got.Status != run.StatusQueued || got.NextAttemptAt == nil {
			t.Fatalf("run: %s due %v", got.Status, got.NextAttemptAt)
		}
		if wait := got.NextAttemptAt.Sub(start); wait < 599*time.Second || wait > 603*time.Second {
			t.Fatalf("due in %s, want the reset (600 s)", wait)
		}
	})
}

// Publishing and finishing held by GitHub's secondary limit say so, with the
// time, on the check run (a check update is not content creation, so GitHub
// takes it); a primary limit refuses every call, so the check is not told.
func TestPublishAndFinishSayTheWaitOnTheCheck(t *testing.T) {
	const reviews = "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews"
	const patch = "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}"
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		port := ghwrite.New(f.apps, "chakshu")

		// Finish: completing a cancelled run's check meets the limit.
		c := f.cancelledAfterDispatch(t, "")
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: patch, Kind: ghsimtest.FaultSecondaryRateLimit, RetryAfter: 90, Times: 1})
		fin, err := worker.NewFinisher(worker.FinishConfig{DB: db, Log: f.log, Bus: f.bus, GitHub: f.apps, Write: port})
		if err != nil {
			t.Fatal(err)
		}
		if err := fin.FinishAll(ctx); err != nil {
			t.Fatal(err)
		}
		got := db.Run.GetX(ctx, c.ID)
		if got.CheckCompleted || got.FinishNextAt == nil {
			t.Fatalf("finish under the limit: completed %v due %v", got.CheckCompleted, got.FinishNextAt)
		}
		if cr := f.checkRun(t, got.CheckRunID); cr.Title != "Waiting for GitHub" || cr.Summary != worker.WaitingText(*got.FinishNextAt) {
			t.Fatalf("check run while finishing waits: %+v", cr)
		}

		// A primary limit: one refused PATCH, and no note after it.
		c2 := f.cancelledAfterDispatch(t, "")
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: patch, Kind: ghsimtest.FaultPrimaryRateLimit, RetryAfter: 600, Times: 1})
		before := f.sim.CallCount(patch)
		if err := fin.FinishAll(ctx); err != nil {
			t.Fatal(err)
		}
		if n := f.sim.CallCount(patch) - before; n != 1 {
			t.Fatalf("%d check updates during a primary limit, want the one refused", n)
		}
		if got := db.Run.GetX(ctx, c2.ID); got.CheckCompleted {
			t.Fatal("check completed during a primary limit")
		}
		// Publish: the review POST meets a secondary limit asking 90 s.
		l := f.publishLoop(t, "w-pub", func(c *worker.PublisherConfig) { c.Check = port })
		f.enqueue(t)
		id := f.claimAndDispatch(t, f.dispatcher(t, "w-disp"), "w-disp")
		f.report(t, id, findings.Result{Summary: "Fine."})
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: reviews, Kind: ghsimtest.FaultSecondaryRateLimit, RetryAfter: 90, Times: 1})
		if got, err := l.Claim(ctx, time.Now()); err != nil || got != id {
			t.Fatalf("claim: %d %v", got, err)
		}
		l.PublishOne(ctx, id)
		r := db.Run.GetX(ctx, id)
		if r.Status != run.StatusPublishing || r.NextAttemptAt == nil || r.NextAttemptAt.Sub(time.Now()) < 80*time.Second {
			t.Fatalf("publishing run after the limit: %s due %v", r.Status, r.NextAttemptAt)
		}
		want := worker.WaitingText(*r.NextAttemptAt)
		if c := f.checkRun(t, r.CheckRunID); c.Title != "Waiting for GitHub" || c.Summary != want || c.Status == "completed" {
			t.Fatalf("check run while publishing waits: %+v, want %q", c, want)
		}

	})
}

// A run held back by its installation's content budget for new reviews goes
// back to the queue with its due time without taking the installation's
// other runs with it one claim at a time: the installation's starts are held
// until then, so the dispatcher's next claims go to other installations
// (store.TestClaimPassesOverHeldStarts) instead of handing back run after run.
func TestPacedInstallationIsNotClaimedAgainBeforeItsTime(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, map[string]string{".github/workflows/chakshu.yml": action.WorkflowTemplate})
		f.enqueue(t)
		f.enqueueAs(t, "style")
		// One content-creating write an hour, kept for reviews under way: a
		// new review's check run must wait the hour.
		port := ghwrite.New(f.apps, "chakshu", ghwrite.WithBudget(ghwrite.NewDBBudget(db, []ghwrite.Window{{N: 1, Per: time.Hour}})))
		d, err := worker.NewDispatcher(worker.DispatchConfig{DB: db, Log: f.log, Bus: f.bus, GitHub: f.apps, Write: port,
			WorkerID: "w1", PublicURL: "http://127.0.0.1:8080", AppSlug: "chakshu"})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		id := f.claimAndDispatch(t, d, "w1")
		got := db.Run.GetX(ctx, id)
		if got.Status != run.StatusQueued || got.LeaseOwner != "" || got.NextAttemptAt == nil || got.NextAttemptAt.Sub(start) < 50*time.Minute {
			t.Fatalf("paced run: %s owner %q due %v", got.Status, got.LeaseOwner, got.NextAttemptAt)
		}
		if n := db.RunEvent.Query().Where(runevent.Message(worker.PacedText(*got.NextAttemptAt))).CountX(ctx); n != 1 {
			t.Fatalf("%d timeline entries saying the pace", n)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w1", time.Now(), 0); id != 0 {
			t.Fatalf("claimed run %d of an installation whose new reviews wait for its budget", id)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w1", got.NextAttemptAt.Add(time.Second), 0); id == 0 {
			t.Fatal("nothing claimable once the budget allows a new review")
		}
	})
}

// A review the content budget held back before it started says so on its
// check run once it starts: the check run opens only then (the pacing held
// its creation), so the line gives the time the wait ended, and it stays on
// the check's text while the review runs.
func TestHeldReviewSaysSoOnItsCheck(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, map[string]string{".github/workflows/chakshu.yml": action.WorkflowTemplate})
		r := f.enqueue(t)
		// 32 writes per 14 s: a write every 0.5 s, bursts of 4, the last 2 of
		// them kept for reviews under way. Reviews under way spend the burst.
		budget := ghwrite.NewDBBudget(db, []ghwrite.Window{{N: 32, Per: 14 * time.Second}})
		for i := range 4 {
			if wait, _, err := budget.Admit(ctx, f.instID, ghwrite.Finishing, time.Now()); err != nil || wait > 0 {
				t.Fatalf("finishing write %d: wait %v err %v", i+1, wait, err)
			}
		}
		dispatcher := func(id string, inline time.Duration) *worker.Dispatcher {
			port := ghwrite.New(f.apps, "chakshu", ghwrite.WithBudget(budget), ghwrite.WithClock(time.Now, inline))
			d, err := worker.NewDispatcher(worker.DispatchConfig{DB: db, Log: f.log, Bus: f.bus, GitHub: f.apps, Write: port,
				WorkerID: id, PublicURL: "http://127.0.0.1:8080", AppSlug: "chakshu"})
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		f.claimAndDispatch(t, dispatcher("w1", 0), "w1")
		got := db.Run.GetX(ctx, r.ID)
		if got.Status != run.StatusQueued || got.CheckRunID != 0 || got.NextAttemptAt == nil {
			t.Fatalf("held run: %s check %d due %v", got.Status, got.CheckRunID, got.NextAttemptAt)
		}
		held := db.Installation.GetX(ctx, f.repo.QueryInstallation().OnlyIDX(ctx)).StartsHeldUntil
		if held == nil || !held.After(got.CreatedAt) {
			t.Fatalf("the installation's starts are not held after the run was asked for: %v", held)
		}
		if n := len(f.sim.CheckRuns(repoName)); n != 0 {
			t.Fatalf("%d check runs while the review is held back", n)
		}
		time.Sleep(time.Until(*got.NextAttemptAt) + 50*time.Millisecond)
		// Inline waits up to 2 s for a new review: it starts now.
		f.claimAndDispatch(t, dispatcher("w2", 10*time.Second), "w2")
		got = db.Run.GetX(ctx, r.ID)
		if got.Status != run.StatusDispatched {
			t.Fatalf("run after the hold: %s", got.Status)
		}
		c := f.checkRun(t, got.CheckRunID)
		want := worker.HeldText(*held)
		if !strings.HasPrefix(c.Summary, "Chakshu is reviewing this pull request in GitHub Actions.") || !strings.HasSuffix(c.Summary, "\n\n"+want) {
			t.Fatalf("check run summary %q, want the running text and then %q", c.Summary, want)
		}
	})
}
