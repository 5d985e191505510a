package worker_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// shadowRun queues a shadow run of the fixture's PR at head, as a backtest
// creates one.
func (f *fixture) shadowRun(t *testing.T, head string) *ent.Run {
	t.Helper()
	return f.db.Run.Create().SetRepository(f.repo).SetReviewer(f.reviewer).SetKind(run.KindReview).
		SetTrigger(run.TriggerBacktest).SetShadow(true).SetBacktestID(9).SetBacktestSide(run.BacktestSideNew).
		SetReviewerSnapshot(reviewerconfig.Snapshot{ClaudeMD: "# new rules\n", Config: new(reviewerconfig.Defaults())}.Map()).
		SetPrNumber(f.pr).SetHeadSha(head).SaveX(context.Background())
}

// writes lists the requests to GitHub that were not reads (nor token mints).
func writes(s *ghsim.Sim) []string {
	var out []string
	for k, n := range s.Calls() {
		if !strings.HasPrefix(k, "GET ") && !strings.HasPrefix(k, "POST /app/") && n > 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// A shadow run replays an older head of a PR that has since moved on and
// closed: it is dispatched like any run (the workflow in the PR's
// repository), opens no check run, and is not cancelled as moved. Cancelled,
// its Actions run is cancelled and nothing else is written.
func TestShadowRunDispatchAndFinish(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		old := f.head
		f.sim.Commit(repoName, "feature", map[string]string{"later.go": "package main\n"}, "later")
		f.sim.ClosePR(repoName, f.pr, "alice")
		rn := f.shadowRun(t, old)

		f.sim.ResetCalls()
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		got := db.Run.GetX(ctx, rn.ID)
		if got.Status != run.StatusDispatched || got.ActionsRunID == 0 || got.CheckRunID != 0 {
			t.Fatalf("shadow run: %s actions %d check %d (%s)", got.Status, got.ActionsRunID, got.CheckRunID, got.FailureReason)
		}
		if d := cmp.Diff([]string{"POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"}, writes(f.sim)); d != "" {
			t.Errorf("writes to GitHub (-want +got):\n%s", d)
		}
		if n := len(f.sim.CheckRuns(repoName)); n != 0 {
			t.Errorf("%d check runs on the repository, want none", n)
		}
		wr, ok := f.sim.Run(got.ActionsRunID)
		if !ok || wr.Inputs["head_sha"] != old || wr.Ref != "main" {
			t.Errorf("workflow run %+v, want one on main for head %s", wr, old)
		}

		// Cancelled (a person, or the backtest's cost cap): the finisher
		// cancels its Actions run, once, and completes no check run.
		if err := runstate.Transition(ctx, db.Client, rn.ID, runstate.Change{From: []run.Status{run.StatusDispatched}, To: run.StatusCancelled, Message: "cancelled"}); err != nil {
			t.Fatal(err)
		}
		f.sim.ResetCalls()
		fin := f.finisher(t)
		for range 2 {
			if err := fin.FinishAll(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if d := cmp.Diff([]string{"POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel"}, writes(f.sim)); d != "" {
			t.Errorf("writes to GitHub (-want +got):\n%s", d)
		}
		if n := f.sim.CallCount("POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel"); n != 1 {
			t.Errorf("Actions run cancelled %d times, want once", n)
		}
		if got := db.Run.GetX(ctx, rn.ID); !got.CheckCompleted || got.ActionsCancelledAt == nil {
			t.Errorf("finished %v, actions cancelled at %v", got.CheckCompleted, got.ActionsCancelledAt)
		}
	})
}

// A push to the reviewed PR, or closing it, cancels its queued and running
// reviews but no shadow run: those replay an older head on purpose.
func TestShadowRunsAreNotSuperseded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		for i, closed := range []bool{false, true} {
			normal := f.enqueue(t)
			// An older head: the runs' unique index allows one active
			// review per PR, reviewer and head, shadow or not.
			shadow := f.shadowRun(t, fmt.Sprintf("%040d", i+1))
			db.Run.UpdateOne(shadow).SetStatus(run.StatusRunning).ExecX(ctx)
			n, err := runstate.CancelSuperseded(ctx, db.Client, f.repo.ID, f.pr, "f00d", closed, "chakshu")
			if err != nil || n != 1 {
				t.Fatalf("closed %v: cancelled %d, err %v; want the normal run only", closed, n, err)
			}
			if st := db.Run.GetX(ctx, normal.ID).Status; st != run.StatusCancelled {
				t.Errorf("closed %v: normal run %s, want cancelled", closed, st)
			}
			if st := db.Run.GetX(ctx, shadow.ID).Status; st != run.StatusRunning {
				t.Errorf("closed %v: shadow run %s, want running", closed, st)
			}
		}
	})
}

// Shadow runs' spend counts against the budgets like any run's, and a spent
// budget stops a shadow run at dispatch (failed, no workflow, nothing on
// the PR) as it stops a review.
func TestBudgetsStopShadowRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		db.Repository.UpdateOne(f.repo).SetBudgetDailyUsd(2).ExecX(ctx)
		spent := f.shadowRun(t, fmt.Sprintf("%040d", 7))
		db.Run.UpdateOne(spent).SetStatus(run.StatusSucceeded).SetCostUsd(2).ExecX(ctx)
		d := f.limitedDispatcher(t, 0)

		f.sim.ResetCalls()
		refused := f.shadowRun(t, f.head)
		f.claimAndDispatch(t, d, "w1")
		got := db.Run.GetX(ctx, refused.ID)
		if got.Status != run.StatusFailed || !strings.Contains(got.FailureReason, "daily spend budget of $2.00") || got.ActionsRunID != 0 {
			t.Fatalf("shadow run over budget: %s %q actions %d", got.Status, got.FailureReason, got.ActionsRunID)
		}
		if w := writes(f.sim); len(w) != 0 {
			t.Errorf("writes to GitHub for a refused shadow run: %v", w)
		}
		// The backtest's spend holds a review back too.
		review := f.enqueue(t)
		f.claimAndDispatch(t, d, "w1")
		if got := db.Run.GetX(ctx, review.ID); got.Status != run.StatusFailed || !strings.Contains(got.FailureReason, "daily spend budget") {
			t.Fatalf("review after the backtest spent the budget: %s %q", got.Status, got.FailureReason)
		}
	})
}
