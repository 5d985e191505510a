package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// queueFixture makes installations with one repository and reviewer each.
type queueFixture struct {
	db   *store.DB
	repo map[string]*ent.Repository
	rv   map[string]*ent.Reviewer
	n    int
}

func newQueueFixture(t *testing.T, db *store.DB, names ...string) *queueFixture {
	t.Helper()
	ctx := context.Background()
	f := &queueFixture{db: db, repo: map[string]*ent.Repository{}, rv: map[string]*ent.Reviewer{}}
	for i, name := range names {
		inst := db.Installation.Create().SetGithubID(int64(100 + i)).SetAccountLogin(name).SaveX(ctx)
		f.repo[name] = db.Repository.Create().SetGithubID(int64(1000 + i)).SetOwner(name).SetName("api").
			SetFullName(name + "/api").SetInstallation(inst).SaveX(ctx)
		f.rv[name] = db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
	}
	return f
}

// queue adds a queued run of installation name, created at.
func (f *queueFixture) queue(t *testing.T, name string, at time.Time, set ...func(*ent.RunCreate)) int {
	t.Helper()
	f.n++
	c := f.db.Run.Create().SetRepository(f.repo[name]).SetReviewer(f.rv[name]).SetPrNumber(f.n).
		SetHeadSha(fmt.Sprintf("sha-%d", f.n)).SetTrigger(run.TriggerComment).SetCreatedAt(at)
	for _, s := range set {
		s(c)
	}
	return c.SaveX(context.Background()).ID
}

// One installation flooding the queue does not starve another: its one run
// is claimed second, although 20 runs of the flood are older; then the claims
// go round by runs in flight, oldest first within an installation.
func TestClaimIsFairAcrossInstallations(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQueueFixture(t, db, "flood", "quiet")
		start := time.Now().Add(-time.Hour)
		var flood []int
		for i := range 20 {
			flood = append(flood, f.queue(t, "flood", start.Add(time.Duration(i)*time.Second)))
		}
		quiet := f.queue(t, "quiet", start.Add(time.Minute))
		now := time.Now()
		var got []int
		for range 4 {
			id, err := queue.Claim(ctx, db, queue.QueuedRuns, "w1", now, 0)
			if err != nil || id == 0 {
				t.Fatalf("claim: %d %v", id, err)
			}
			got = append(got, id)
		}
		// flood's oldest (both idle, neither claimed before: the first
		// installation), then quiet (flood has one
		// in flight), then flood in its own order.
		want := []int{flood[0], quiet, flood[1], flood[2]}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("claim order %v, want %v", got, want)
		}
	})
}

// Runs under way count as in flight whatever holds them (dispatched, running,
// publishing); finished runs do not. An installation with N in flight goes
// after one with N-1, and a tie goes to the installation not claimed since.
func TestClaimCountsRunsInFlight(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQueueFixture(t, db, "a", "b")
		start := time.Now().Add(-time.Hour)
		status := func(s run.Status) func(*ent.RunCreate) { return func(c *ent.RunCreate) { c.SetStatus(s) } }
		// a: two in flight (dispatched, publishing); b: one running and two finished.
		f.queue(t, "a", start, status(run.StatusDispatched))
		f.queue(t, "a", start, status(run.StatusPublishing))
		f.queue(t, "b", start, status(run.StatusRunning))
		f.queue(t, "b", start, status(run.StatusSucceeded))
		f.queue(t, "b", start, status(run.StatusFailed))
		aRun := f.queue(t, "a", start.Add(time.Second))
		bRun := f.queue(t, "b", start.Add(2*time.Second))
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w", time.Now(), 0); id != bRun {
			t.Fatalf("claimed %d, want b's run %d (1 in flight against 2)", id, bRun)
		}
		// Now both have two in flight: a, never claimed, goes before b, just claimed.
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w", time.Now(), 0); id != aRun {
			t.Fatalf("claimed %d, want a's run %d on a tie (b was just claimed)", id, aRun)
		}
	})
}

// Due times hold whatever the fairness: a run waiting for its next attempt
// is not claimed before then, even for the idlest installation.
func TestClaimHonoursDueTimes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQueueFixture(t, db, "flood", "quiet")
		now := time.Now()
		due := now.Add(time.Minute)
		f.queue(t, "flood", now.Add(-time.Hour), func(c *ent.RunCreate) { c.SetStatus(run.StatusDispatched) })
		floodRun := f.queue(t, "flood", now.Add(-time.Hour))
		quiet := f.queue(t, "quiet", now.Add(-2*time.Hour), func(c *ent.RunCreate) { c.SetNextAttemptAt(due) })
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w", now, 0); id != floodRun {
			t.Fatalf("claimed %d before its due time; want %d", id, floodRun)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w", due.Add(-time.Millisecond), 0); id != 0 {
			t.Fatalf("claimed %d a moment before it was due", id)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w", due, 0); id != quiet {
			t.Fatalf("claimed %d at its due time, want %d", id, quiet)
		}
	})
}

// Installations with as many runs in flight take turns: the one claimed
// longest ago goes first, so the installation with the oldest runs does not
// win every tie.
func TestClaimGoesRoundRobinOnTies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQueueFixture(t, db, "a", "b", "c")
		start := time.Now().Add(-time.Hour)
		owner := map[int]string{}
		for _, name := range []string{"a", "b", "c"} {
			for i := range 3 {
				// a's runs are the oldest, c's the newest.
				owner[f.queue(t, name, start.Add(time.Duration(i)*time.Second))] = name
			}
			start = start.Add(time.Minute)
		}
		var got []string
		for k := range 6 {
			id, err := queue.Claim(ctx, db, queue.QueuedRuns, "w", time.Now().Add(time.Duration(k)*time.Millisecond), 0)
			if err != nil || id == 0 {
				t.Fatalf("claim %d: %d %v", k, id, err)
			}
			got = append(got, owner[id])
			// Finished at once: every installation has none in flight again.
			db.Run.UpdateOneID(id).SetStatus(run.StatusSucceeded).SetLeaseOwner("").ExecX(ctx)
		}
		if fmt.Sprint(got) != "[a b c a b c]" {
			t.Fatalf("claims went to %v, want a b c a b c", got)
		}
	})
}

// An installation whose starts are held (its content budget for new reviews
// is spent) has no run claimed until the hold passes, whatever its runs in
// flight and their age: the claims go to the others meanwhile.
func TestClaimPassesOverHeldStarts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQueueFixture(t, db, "flood", "quiet")
		now := time.Now()
		var flood []int
		for i := range 3 {
			flood = append(flood, f.queue(t, "flood", now.Add(-time.Hour+time.Duration(i)*time.Second)))
		}
		quiet := f.queue(t, "quiet", now.Add(-time.Minute))
		f.queue(t, "quiet", now.Add(-time.Minute), func(c *ent.RunCreate) { c.SetStatus(run.StatusRunning) })
		until := now.Add(time.Minute)
		inst := f.repo["flood"].QueryInstallation().OnlyIDX(ctx)
		if err := queue.HoldStarts(ctx, db, inst, until); err != nil {
			t.Fatal(err)
		}
		// An earlier hold does not shorten a later one.
		if err := queue.HoldStarts(ctx, db, inst, now); err != nil {
			t.Fatal(err)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w", now, 0); id != quiet {
			t.Fatalf("claimed %d, want quiet's run %d while flood's starts are held", id, quiet)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w", until.Add(-time.Millisecond), 0); id != 0 {
			t.Fatalf("claimed %d of an installation whose starts are held", id)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w", until, 0); id != flood[0] {
			t.Fatalf("claimed %d once the hold passed, want flood's oldest %d", id, flood[0])
		}
	})
}

// The lease's life: claimed by one worker only, kept by heartbeats, taken
// over once silent for longer than staleAfter (not at exactly staleAfter),
// released with a due time, and requeued by RequeueDead.
func TestLeaseLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now()
		ev := db.WebhookEvent.Create().SetDeliveryID("d1").SetEvent("ping").SetPayload([]byte(`{}`)).SaveX(ctx)
		if id, err := queue.Claim(ctx, db, queue.WebhookEvents, "w1", now, 90*time.Second); err != nil || id != ev.ID {
			t.Fatalf("claim: %d %v", id, err)
		}
		got := db.WebhookEvent.GetX(ctx, ev.ID)
		if got.Status != webhookevent.StatusProcessing || got.LeaseOwner != "w1" || got.Attempts != 1 {
			t.Fatalf("after claim: %s %q %d", got.Status, got.LeaseOwner, got.Attempts)
		}
		if id, _ := queue.Claim(ctx, db, queue.WebhookEvents, "w2", now, 90*time.Second); id != 0 {
			t.Fatal("a held event was claimed twice")
		}
		beat := now.Add(time.Minute)
		if err := queue.Heartbeat(ctx, db, "w1", beat); err != nil {
			t.Fatal(err)
		}
		if id, _ := queue.Claim(ctx, db, queue.WebhookEvents, "w2", beat.Add(90*time.Second), 90*time.Second); id != 0 {
			t.Fatal("taken over at exactly staleAfter")
		}
		if id, _ := queue.Claim(ctx, db, queue.WebhookEvents, "w2", beat.Add(91*time.Second), 90*time.Second); id != ev.ID {
			t.Fatal("not taken over once silent past staleAfter")
		}
		// The old holder cannot release what it lost.
		if held, err := queue.Release(ctx, db, queue.WebhookEvents, ev.ID, "w1", now); err != nil || held {
			t.Fatalf("release by the old holder: %v %v", held, err)
		}
		due := now.Add(time.Hour)
		if held, err := queue.Release(ctx, db, queue.WebhookEvents, ev.ID, "w2", due); err != nil || !held {
			t.Fatalf("release: %v %v", held, err)
		}
		got = db.WebhookEvent.GetX(ctx, ev.ID)
		if got.Status != webhookevent.StatusPending || got.LeaseOwner != "" || got.NextAttemptAt == nil || got.NextAttemptAt.Sub(due).Abs() > time.Millisecond {
			t.Fatalf("after release: %s %q %v", got.Status, got.LeaseOwner, got.NextAttemptAt)
		}
		if id, _ := queue.Claim(ctx, db, queue.WebhookEvents, "w3", due.Add(-time.Second), 90*time.Second); id != 0 {
			t.Fatal("claimed before its due time")
		}
		// Work whose holder went silent before the cutoff goes back, due at
		// once; work heartbeated after it stays.
		if id, _ := queue.Claim(ctx, db, queue.WebhookEvents, "dead", due, 90*time.Second); id != ev.ID {
			t.Fatal("claim at the due time")
		}
		f := newQueueFixture(t, db, "acme")
		live := f.queue(t, "acme", now)
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "live", due, 0); id != live {
			t.Fatal("claim the run")
		}
		back, err := queue.RequeueDead(ctx, db, due.Add(-time.Second))
		if err != nil || back != (queue.Requeued{}) {
			t.Fatalf("requeued fresh leases: %+v %v", back, err)
		}
		back, err = queue.RequeueDead(ctx, db, due.Add(time.Second))
		if err != nil || back != (queue.Requeued{Runs: 1, Events: 1}) {
			t.Fatalf("requeue: %+v %v", back, err)
		}
		got = db.WebhookEvent.GetX(ctx, ev.ID)
		if got.Status != webhookevent.StatusPending || got.LeaseOwner != "" || got.NextAttemptAt != nil {
			t.Fatalf("after requeue: %s %q %v", got.Status, got.LeaseOwner, got.NextAttemptAt)
		}
	})
}

// Backtests are leased like the other queues: a cancelled backtest is
// claimable only while its check run is still to be completed (the queue's
// narrowing), a holder keeps it by heartbeating, and a silent holder's
// backtest is taken back with its status kept.
func TestBacktestQueues(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now().UTC().Truncate(time.Millisecond)
		inst := db.Installation.Create().SetGithubID(7).SetAccountLogin("acme").SaveX(ctx)
		mk := func(st backtest.Status, checkDone bool) *ent.Backtest {
			return db.Backtest.Create().SetInstallation(inst).SetReviewerName("security").SetReviewersRepo("acme/chakshu-reviewers").
				SetPrNumber(1).SetHeadSha("h").SetStatus(st).SetCheckCompleted(checkDone).SaveX(ctx)
		}
		done := mk(backtest.StatusCancelled, true)
		open := mk(backtest.StatusCancelled, false)
		if id, err := queue.Claim(ctx, db, queue.CancelledBacktests, "w1", now, 90*time.Second); err != nil || id != open.ID {
			t.Fatalf("claimed %d (%v), want the cancelled backtest whose check is open %d (not %d)", id, err, open.ID, done.ID)
		}
		if id, _ := queue.Claim(ctx, db, queue.CancelledBacktests, "w2", now, 90*time.Second); id != 0 {
			t.Fatalf("claimed %d: a completed check's backtest, or one held", id)
		}
		running := mk(backtest.StatusRunning, false)
		if id, _ := queue.Claim(ctx, db, queue.RunningBacktests, "w1", now, 90*time.Second); id != running.ID {
			t.Fatal("claim the running backtest")
		}
		if err := queue.Heartbeat(ctx, db, "w1", now.Add(60*time.Second)); err != nil {
			t.Fatal(err)
		}
		if id, _ := queue.Claim(ctx, db, queue.RunningBacktests, "w2", now.Add(120*time.Second), 90*time.Second); id != 0 {
			t.Fatal("a heartbeated backtest was taken over")
		}
		back, err := queue.RequeueDead(ctx, db, now.Add(61*time.Second))
		if err != nil || back.Backtests != 2 {
			t.Fatalf("requeue: %+v %v", back, err)
		}
		got := db.Backtest.GetX(ctx, running.ID)
		if got.Status != backtest.StatusRunning || got.LeaseOwner != "" {
			t.Fatalf("after requeue: %s %q", got.Status, got.LeaseOwner)
		}
	})
}
