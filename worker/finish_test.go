package worker_test

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/ent/runevent"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/worker"
)

const (
	cancelActionsRun = "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel"
	updateCheckRun   = "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}"
)

// timeline returns the messages on run id's timeline.
func (f *fixture) timeline(t *testing.T, id int) []string {
	t.Helper()
	var out []string
	for _, e := range f.db.RunEvent.Query().Where(runevent.HasRunWith(run.ID(id))).Order(runevent.ByID()).AllX(context.Background()) {
		out = append(out, e.Message)
	}
	return out
}

// cancelledAfterDispatch dispatches a run and cancels it in the database, as
// the cancelRun mutation does (after complete, if set, ends its Actions run
// first), and returns the run.
func (f *fixture) cancelledAfterDispatch(t *testing.T, complete string) *ent.Run {
	t.Helper()
	ctx := context.Background()
	r := f.enqueue(t)
	f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
	got := f.db.Run.GetX(ctx, r.ID)
	if got.Status != run.StatusDispatched || got.ActionsRunID == 0 {
		t.Fatalf("run after dispatch: %s, actions run %d", got.Status, got.ActionsRunID)
	}
	if complete != "" {
		f.sim.CompleteRun(got.ActionsRunID, complete)
	}
	if err := runstate.Transition(ctx, f.db.Client, r.ID, runstate.Change{From: runstate.Active, To: run.StatusCancelled, Message: "Cancelled by alice in the portal."}); err != nil {
		t.Fatal(err)
	}
	return got
}

// finishTwice runs the finisher twice: the second pass must change nothing.
func (f *fixture) finishTwice(t *testing.T, fin *worker.Finisher) {
	t.Helper()
	for i := 0; i < 2; i++ {
		if err := fin.FinishAll(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func has(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A dispatched run cancelled in the database (as the cancelRun mutation does)
// has its Actions run cancelled and its check run completed, each once, even
// when completing the check needs a second try.
func TestFinisherCancelsActionsRunOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		r := f.cancelledAfterDispatch(t, "")
		// The first attempt to complete the check fails (not retried by the client).
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: updateCheckRun, Kind: ghsimtest.FaultServerError, Status: 422, Times: 1})
		fin := f.finisher(t)
		if err := fin.FinishAll(ctx); err != nil {
			t.Fatal(err)
		}
		wr, _ := f.sim.Run(r.ActionsRunID)
		if wr.Status != "completed" || wr.Conclusion != "cancelled" {
			t.Fatalf("Actions run: %s/%s, want completed/cancelled", wr.Status, wr.Conclusion)
		}
		got := db.Run.GetX(ctx, r.ID)
		if got.CheckCompleted {
			t.Fatal("check recorded completed although completing it failed")
		}
		// The failure is counted and backs off on the finisher's own due time.
		if got.FinishAttempts != 1 || got.FinishNextAt == nil || got.ActionsCancelledAt == nil {
			t.Fatalf("after a failed finish: attempts %d, due %v, Actions cancelled %v", got.FinishAttempts, got.FinishNextAt, got.ActionsCancelledAt)
		}
		updates := f.sim.CallCount(updateCheckRun)
		if err := fin.FinishAll(ctx); err != nil || f.sim.CallCount(updateCheckRun) != updates {
			t.Fatalf("finished again before its due time: %v, %d check updates, want %d", err, f.sim.CallCount(updateCheckRun), updates)
		}
		// The retry completes the check without cancelling again.
		db.Run.UpdateOneID(r.ID).ClearFinishNextAt().ExecX(ctx)
		f.finishTwice(t, fin)
		if n := f.sim.CallCount(cancelActionsRun); n != 1 {
			t.Fatalf("%d Actions cancels, want 1", n)
		}
		c := f.checkRun(t, r.CheckRunID)
		if c.Status != "completed" || c.Conclusion != "cancelled" {
			t.Fatalf("check run: %+v", c)
		}
		if !db.Run.GetX(ctx, r.ID).CheckCompleted {
			t.Fatal("check_completed not recorded")
		}
		if tl := f.timeline(t, r.ID); !has(tl, "Cancelled the GitHub Actions run.") {
			t.Fatalf("timeline: %q", tl)
		}
	})
}

// An Actions run that finished before the cancel reached it (409) is not an
// error: the check completes and nothing is retried.
func TestFinisherActionsRunAlreadyFinished(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		r := f.cancelledAfterDispatch(t, "success")
		f.finishTwice(t, f.finisher(t))
		if n := f.sim.CallCount(cancelActionsRun); n != 1 {
			t.Fatalf("%d Actions cancels, want 1", n)
		}
		if wr, _ := f.sim.Run(r.ActionsRunID); wr.Conclusion != "success" {
			t.Fatalf("Actions run conclusion %q", wr.Conclusion)
		}
		if c := f.checkRun(t, r.CheckRunID); c.Status != "completed" || c.Conclusion != "cancelled" {
			t.Fatalf("check run: %+v", c)
		}
		if tl := f.timeline(t, r.ID); !has(tl, "The GitHub Actions run had already finished.") {
			t.Fatalf("timeline: %q", tl)
		}
	})
}

// A failed cancel does not block the check. A run that failed before its
// runner reported (a timeout, a refused job) has its Actions run cancelled
// too; one whose runner reported its own failure is left alone.
func TestFinisherCancelFailureDoesNotBlockCheck(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		r := f.cancelledAfterDispatch(t, "")
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: cancelActionsRun, Kind: ghsimtest.FaultServerError, Status: 403})
		if err := f.finisher(t).FinishAll(ctx); err != nil {
			t.Fatal(err)
		}
		if ghsimtest.FaultHits(f.sim, 0) == 0 {
			t.Fatal("the Actions run was not asked to cancel")
		}
		if c := f.checkRun(t, r.CheckRunID); c.Status != "completed" || c.Conclusion != "cancelled" {
			t.Fatalf("check run: %+v", c)
		}
		if !db.Run.GetX(ctx, r.ID).CheckCompleted {
			t.Fatal("check_completed not recorded")
		}

		r2 := f.enqueue(t) // same PR and head: the first is no longer active
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		ghsimtest.ClearFaults(f.sim)
		f.sim.ResetCalls()
		if err := runstate.Fail(ctx, db.Client, r2.ID, "The runner did not fetch its job in time.", ""); err != nil {
			t.Fatal(err)
		}
		f.finishTwice(t, f.finisher(t))
		if n := f.sim.CallCount(cancelActionsRun); n != 1 {
			t.Fatalf("%d Actions cancels for a run that failed before its runner reported, want 1", n)
		}
		got2 := db.Run.GetX(ctx, r2.ID)
		if wr, _ := f.sim.Run(got2.ActionsRunID); wr.Conclusion != "cancelled" {
			t.Fatalf("Actions run of the timed-out run: %s/%s", wr.Status, wr.Conclusion)
		}
		if c := f.checkRun(t, got2.CheckRunID); c.Conclusion != "failure" {
			t.Fatalf("check run: %+v", c)
		}

		r3 := f.enqueue(t)
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		f.sim.ResetCalls()
		// The runner's own failure report stamps the result receipt.
		db.Run.UpdateOneID(r3.ID).SetResultHash("receipt").ExecX(ctx)
		if err := runstate.Fail(ctx, db.Client, r3.ID, "The review failed.", ""); err != nil {
			t.Fatal(err)
		}
		f.finishTwice(t, f.finisher(t))
		if n := f.sim.CallCount(cancelActionsRun); n != 0 {
			t.Fatalf("%d Actions cancels for a run whose runner reported its failure", n)
		}
		if c := f.checkRun(t, db.Run.GetX(ctx, r3.ID).CheckRunID); c.Conclusion != "failure" {
			t.Fatalf("check run: %+v", c)
		}
	})
}
