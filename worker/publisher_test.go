package worker_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/worker"
)

func (f *fixture) publishLoop(t *testing.T, id string, tune ...func(*worker.PublisherConfig)) *worker.PublishLoop {
	t.Helper()
	p, err := publish.New(publish.Config{DB: f.db, GitHub: f.apps, AppSlug: "chakshu", PublicURL: "http://127.0.0.1:8080", Log: f.log})
	if err != nil {
		t.Fatal(err)
	}
	cfg := worker.PublisherConfig{DB: f.db, Bus: f.bus, Publisher: p, Log: f.log, WorkerID: id,
		Poll: time.Second, StaleAfter: 90 * time.Second}
	for _, fn := range tune {
		fn(&cfg)
	}
	l, err := worker.NewPublishLoop(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// report moves a dispatched run to publishing with res, as the runner API does.
func (f *fixture) report(t *testing.T, id int, res findings.Result) {
	t.Helper()
	ctx := context.Background()
	b, _ := json.Marshal(res)
	if err := runstate.Transition(ctx, f.db.Client, id, runstate.Change{From: []run.Status{run.StatusDispatched}, To: run.StatusRunning}); err != nil {
		t.Fatal(err)
	}
	err := runstate.Transition(ctx, f.db.Client, id, runstate.Change{From: []run.Status{run.StatusRunning}, To: run.StatusPublishing,
		Set: func(u *ent.RunUpdate) { u.SetResultJSON(string(b)) }})
	if err != nil {
		t.Fatal(err)
	}
	f.bus.Notify(ctx, wakeup.TopicPublish) //nolint:errcheck
}

func TestPublishLoopEndToEnd(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		loop := f.publishLoop(t, "w-pub")
		done := make(chan error, 1)
		go func() { done <- loop.Run(ctx) }()

		f.enqueue(t)
		id := f.claimAndDispatch(t, f.dispatcher(t, "w-disp"), "w-disp")
		f.report(t, id, findings.Result{Summary: "One thing.", Findings: []findings.Finding{
			{Path: "main.go", Line: 3, Side: "RIGHT", Severity: findings.Major, Category: "bug", Title: "Empty main", Body: "It does nothing."},
		}})
		deadline := time.Now().Add(20 * time.Second)
		var r *ent.Run
		for {
			r = db.Run.GetX(context.Background(), id)
			if r.Status == run.StatusSucceeded || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if r.Status != run.StatusSucceeded || r.LeaseOwner != "" || r.FindingsPosted != 1 {
			t.Fatalf("run: status %s lease %q posted %d (%s)", r.Status, r.LeaseOwner, r.FindingsPosted, r.FailureDetail)
		}
		if cr := f.checkRun(t, r.CheckRunID); cr.Status != "completed" || cr.Conclusion != "success" {
			t.Fatalf("check run: %+v", cr)
		}
		var inline int
		for _, c := range f.sim.ReviewComments(repoName, f.pr) {
			if c.Author == "chakshu[bot]" && strings.Contains(c.Body, "**Empty main**") {
				inline++
			}
		}
		if inline != 1 {
			t.Fatalf("%d inline comments, want 1", inline)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

func TestPublishClaimAndLeases(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		ctx := context.Background()
		a, b := f.publishLoop(t, "w-a"), f.publishLoop(t, "w-b")
		now := time.Now()
		newRun := func(sha string, set func(*ent.RunCreate)) int {
			c := db.Run.Create().SetRepository(f.repo).SetReviewer(f.reviewer).SetTrigger(run.TriggerComment).
				SetPrNumber(f.pr).SetHeadSha(sha).SetStatus(run.StatusPublishing).SetReportedAt(now.Add(-time.Minute))
			if set != nil {
				set(c)
			}
			return c.SaveX(ctx).ID
		}
		id := newRun("s1", nil)
		if got, err := a.Claim(ctx, now); err != nil || got != id {
			t.Fatalf("A claim: %d %v", got, err)
		}
		if got, _ := b.Claim(ctx, now); got != 0 {
			t.Fatalf("B claimed %d while A holds it", got)
		}
		// A's heartbeat keeps it; B may take it over only once A goes silent.
		later := now.Add(60 * time.Second)
		if err := queue.Heartbeat(ctx, db, "w-a", later, queue.PublishingRuns); err != nil {
			t.Fatal(err)
		}
		if got, _ := b.Claim(ctx, later.Add(60*time.Second)); got != 0 {
			t.Fatal("B took over a lease with a fresh heartbeat")
		}
		if got, _ := b.Claim(ctx, later.Add(91*time.Second)); got != id {
			t.Fatalf("B did not take over a stale lease: %d", got)
		}
		if r := db.Run.GetX(ctx, id); r.LeaseOwner != "w-b" {
			t.Fatalf("lease owner %q", r.LeaseOwner)
		}

		// A lease left from before the run reached publishing is not a publisher's.
		left := newRun("s2", func(c *ent.RunCreate) { c.SetLeaseOwner("w-disp").SetHeartbeatAt(now.Add(-2 * time.Minute)) })
		// A run waiting for a retry is not claimable yet.
		newRun("s3", func(c *ent.RunCreate) { c.SetNextAttemptAt(now.Add(time.Minute)) })
		if got, _ := a.Claim(ctx, now); got != left {
			t.Fatalf("claimed %d, want the run with a leftover lease %d", got, left)
		}
		if got, _ := a.Claim(ctx, now); got != 0 {
			t.Fatalf("claimed %d, a run waiting for its retry", got)
		}

		// The heartbeat touches only publishing runs of its owner.
		other := newRun("s4", func(c *ent.RunCreate) {
			c.SetStatus(run.StatusQueued).SetLeaseOwner("w-a").SetHeartbeatAt(now)
		})
		if err := queue.Heartbeat(ctx, db, "w-a", now.Add(time.Hour), queue.PublishingRuns); err != nil {
			t.Fatal(err)
		}
		if hb := db.Run.GetX(ctx, other).HeartbeatAt; hb == nil || hb.After(now.Add(time.Minute)) {
			t.Fatal("heartbeat touched a run in another state")
		}
		if hb := db.Run.GetX(ctx, left).HeartbeatAt; hb == nil || !hb.After(now.Add(59*time.Minute)) {
			t.Fatal("heartbeat missed a held publishing run")
		}
	})
}

func TestPublishLoopRetriesThenFails(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		// GitHub hangs on every files list: each attempt runs out of time.
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}/files", Kind: ghsimtest.FaultLatency, Latency: 2 * time.Second})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		loop := f.publishLoop(t, "w-pub", func(c *worker.PublisherConfig) {
			c.Poll, c.RunTimeout, c.RetryAfter = 20*time.Millisecond, 200*time.Millisecond, 10*time.Millisecond
		})
		done := make(chan error, 1)
		go func() { done <- loop.Run(ctx) }()
		f.enqueue(t)
		id := f.claimAndDispatch(t, f.dispatcher(t, "w-disp"), "w-disp")
		f.report(t, id, findings.Result{Summary: "s"})
		deadline := time.Now().Add(30 * time.Second)
		var r *ent.Run
		for {
			r = db.Run.GetX(context.Background(), id)
			if r.Status != run.StatusPublishing || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if r.Status != run.StatusFailed || r.FailureReason != "Chakshu could not publish this review on GitHub. It can be triggered again." {
			t.Fatalf("run: %s %q", r.Status, r.FailureReason)
		}
		notes := db.RunEvent.Query().Where(runevent.HasRunWith(run.ID(id)), runevent.Message("Publishing was interrupted; it will be tried again.")).CountX(context.Background())
		if notes != 2 {
			t.Fatalf("%d retries recorded, want 2 before the third attempt fails the run", notes)
		}
		cancel()
		<-done
	})
}
