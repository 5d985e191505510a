package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
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
		f := newFixture(t, db, map[string]string{".github/workflows/chakshu.yml": "on: workflow_dispatch\n"})
		const dispatches = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"
		f.sim.InjectFault(ghsim.Fault{Match: dispatches, Kind: ghsim.FaultSecondaryRateLimit, NoRetryAfter: true, Times: 2})
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
		if id, _ := db.Claim(ctx, store.QueuedRuns, "w1", time.Now(), 0); id != 0 {
			t.Fatal("a waiting run was claimed before its due time")
		}

		// The second limit in a row waits longer (two minutes).
		start = time.Now()
		if id, err := db.Claim(ctx, store.QueuedRuns, "w1", got.NextAttemptAt.Add(time.Second), 0); err != nil || id != r.ID {
			t.Fatalf("claim when due: %d %v", id, err)
		}
		d.Dispatch(ctx, r.ID)
		got = db.Run.GetX(ctx, r.ID)
		if wait := got.NextAttemptAt.Sub(start); got.Status != run.StatusQueued || wait < 119*time.Second || wait > 122*time.Second {
			t.Fatalf("second limit: %s due in %s, want two minutes", got.Status, wait)
		}

		// GitHub answers again: dispatched, once.
		if id, _ := db.Claim(ctx, store.QueuedRuns, "w1", got.NextAttemptAt.Add(time.Second), 0); id != r.ID {
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
		f := newFixture(t, db, map[string]string{".github/workflows/chakshu.yml": "on: workflow_dispatch\n"})
		f.sim.InjectFault(ghsim.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}", Kind: ghsim.FaultPrimaryRateLimit, RetryAfter: 600, Times: 1})
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
