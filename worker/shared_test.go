package worker_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// runIDsOf are the Chakshu runs an Actions run was dispatched for.
func runIDsOf(wr ghsim.WorkflowRun) []string {
	if ids := fmt.Sprint(wr.Inputs["run_ids"]); wr.Inputs["run_ids"] != nil && ids != "" {
		return strings.Split(ids, ",")
	}
	return []string{fmt.Sprint(wr.Inputs["run_id"])}
}

// enqueueReviewers queues one run per named reviewer (created as needed) on
// the fixture's PR at its head.
func (f *fixture) enqueueReviewers(t *testing.T, names ...string) []*ent.Run {
	t.Helper()
	ctx := context.Background()
	inst := f.repo.QueryInstallation().OnlyIDX(ctx)
	var ids []int
	for _, n := range names {
		rv, err := f.db.Reviewer.Query().Where().All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rv, func(r *ent.Reviewer) bool { return r.Name == n })
		if i < 0 {
			ids = append(ids, f.db.Reviewer.Create().SetName(n).SetInstallationID(inst).SaveX(ctx).ID)
		} else {
			ids = append(ids, rv[i].ID)
		}
	}
	created, _, err := runstate.Enqueue(ctx, f.db, f.bus, runstate.Request{RepositoryID: f.repo.ID, ReviewerIDs: ids,
		PRNumber: f.pr, HeadSHA: f.head, Trigger: run.TriggerComment, Requester: "alice"})
	if err != nil || len(created) != len(names) {
		t.Fatalf("enqueue: %v (%d created)", err, len(created))
	}
	return created
}

// Three reviewers queued for one PR and commit: one claim takes all three,
// each gets its own check run, and one workflow dispatch starts one Actions
// run whose inputs name the three runs; each run records that Actions run.
// A reviewer asked for later, and a review of another commit, get an Actions
// run of their own.
func TestDispatchSharesOneActionsRunPerPR(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		d := f.dispatcher(t, "w1")
		three := f.enqueueReviewers(t, "security", "style", "correctness")
		f.claimAndDispatch(t, d, "w1")

		if n := f.sim.CallCount(dispatchKey); n != 1 {
			t.Fatalf("%d workflow dispatches for three reviewers, want 1", n)
		}
		wrs := f.sim.Runs()
		if len(wrs) != 1 {
			t.Fatalf("%d Actions runs, want 1", len(wrs))
		}
		wr := wrs[0]
		var want []string
		checks := map[int64]bool{}
		for _, r := range three {
			got := db.Run.GetX(ctx, r.ID)
			if got.Status != run.StatusDispatched || got.ActionsRunID != wr.ID || got.ActionsRunURL == "" || got.LeaseOwner != "" {
				t.Errorf("run %d: status %s, Actions run %d (want %d), lease %q", r.ID, got.Status, got.ActionsRunID, wr.ID, got.LeaseOwner)
			}
			if got.CheckRunID == 0 || checks[got.CheckRunID] {
				t.Errorf("run %d: check run %d, want one of its own", r.ID, got.CheckRunID)
			}
			checks[got.CheckRunID] = true
			want = append(want, strconv.Itoa(r.ID))
		}
		if got := runIDsOf(wr); fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(wr.Inputs["run_id"]) != want[0] {
			t.Fatalf("Actions run inputs %v, want run_id %s and run_ids %v", wr.Inputs, want[0], want)
		}
		if n := len(f.sim.CheckRuns(repoName)); n != 3 {
			t.Fatalf("%d check runs, want 3", n)
		}
		if !strings.Contains(wr.DisplayTitle, "Chakshu run "+strings.Join(want, ",")+" ") {
			t.Errorf("Actions run title %q does not name the three runs", wr.DisplayTitle)
		}

		// Asked for later: its own Actions run, alone (run_ids not sent).
		later := f.enqueueReviewers(t, "perf")[0]
		f.claimAndDispatch(t, d, "w1")
		// Another commit: its own Actions run.
		f.head = f.sim.Commit(repoName, "feature", map[string]string{"b.go": "package main\n"}, "more")
		other := f.enqueueReviewers(t, "security", "style")
		f.claimAndDispatch(t, d, "w1")
		if n := f.sim.CallCount(dispatchKey); n != 3 {
			t.Fatalf("%d workflow dispatches, want 3 (the three, the later one, the other commit's)", n)
		}
		gotLater := db.Run.GetX(ctx, later.ID)
		if gotLater.Status != run.StatusDispatched || gotLater.ActionsRunID == wr.ID {
			t.Errorf("later run: %s in Actions run %d, want its own", gotLater.Status, gotLater.ActionsRunID)
		}
		a, b := db.Run.GetX(ctx, other[0].ID), db.Run.GetX(ctx, other[1].ID)
		if a.ActionsRunID != b.ActionsRunID || a.ActionsRunID == wr.ID || a.ActionsRunID == gotLater.ActionsRunID {
			t.Errorf("the other commit's runs: Actions runs %d and %d, want one of their own", a.ActionsRunID, b.ActionsRunID)
		}
		for _, w := range f.sim.Runs() {
			if w.ID == gotLater.ActionsRunID {
				if _, ok := w.Inputs["run_ids"]; ok {
					t.Errorf("a run alone was dispatched with run_ids: %v", w.Inputs)
				}
			}
		}
	})
}

// A repository still on a workflow file from before run_ids refuses the
// shared dispatch (422 "Unexpected inputs provided"): each reviewer then gets
// its own Actions run, as before, and the repository is remembered, so the
// next PR's reviewers are dispatched one by one at once.
func TestDispatchWithAnOlderWorkflowStartsOneRunEach(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		older := strings.Replace(action.WorkflowTemplate, "      run_ids:\n", "      not_run_ids:\n", 1)
		if older == action.WorkflowTemplate {
			t.Fatal("the template declares no run_ids input")
		}
		f := newFixture(t, db, map[string]string{"main.go": "package main\n", ".github/workflows/chakshu.yml": older})
		d := f.dispatcher(t, "w1")
		three := f.enqueueReviewers(t, "security", "style", "correctness")
		f.claimAndDispatch(t, d, "w1")
		seen := map[int64]bool{}
		for _, r := range three {
			got := db.Run.GetX(ctx, r.ID)
			if got.Status != run.StatusDispatched || got.ActionsRunID == 0 || seen[got.ActionsRunID] {
				t.Errorf("run %d: %s in Actions run %d (%s), want one of its own", r.ID, got.Status, got.ActionsRunID, got.FailureReason)
			}
			seen[got.ActionsRunID] = true
		}
		if n := f.sim.CallCount(dispatchKey); n != 4 {
			t.Fatalf("%d dispatch calls, want 4 (the shared one refused, then one each)", n)
		}
		f.head = f.sim.Commit(repoName, "feature", map[string]string{"b.go": "package main\n"}, "more")
		f.enqueueReviewers(t, "security", "style")
		f.claimAndDispatch(t, d, "w1")
		f.claimAndDispatch(t, d, "w1")
		if n := f.sim.CallCount(dispatchKey); n != 6 {
			t.Fatalf("%d dispatch calls, want 6 (the repository is remembered)", n)
		}
	})
}

// A reviewer whose run cannot start (its model is retired) fails alone; the
// others of its PR share their Actions run.
func TestDispatchFailsOneReviewerAlone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		d := f.dispatcher(t, "w1")
		three := f.enqueueReviewers(t, "security", "style", "correctness")
		db.Run.UpdateOneID(three[1].ID).SetModel("claude-sonnet-4-5").ExecX(ctx) // retired 2026-11-30
		f.claimAndDispatch(t, d, "w1")
		bad := db.Run.GetX(ctx, three[1].ID)
		if bad.Status != run.StatusFailed || !strings.Contains(bad.FailureReason, "model") {
			t.Fatalf("run with a retired model: %s (%q)", bad.Status, bad.FailureReason)
		}
		a, c := db.Run.GetX(ctx, three[0].ID), db.Run.GetX(ctx, three[2].ID)
		if a.Status != run.StatusDispatched || c.Status != run.StatusDispatched || a.ActionsRunID == 0 || a.ActionsRunID != c.ActionsRunID {
			t.Fatalf("the others: %s/%s in Actions runs %d and %d, want both dispatched in one", a.Status, c.Status, a.ActionsRunID, c.ActionsRunID)
		}
		if wrs := f.sim.Runs(); len(wrs) != 1 || fmt.Sprint(runIDsOf(wrs[0])) != fmt.Sprint([]string{strconv.Itoa(a.ID), strconv.Itoa(c.ID)}) {
			t.Fatalf("Actions runs %+v, want one for runs %d and %d", wrs, a.ID, c.ID)
		}
	})
}

// The finisher leaves a shared Actions run going while another review in it
// has not reported, and cancels it once the last one ends without a result.
func TestFinisherCancelsASharedActionsRunLast(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		two := f.enqueueReviewers(t, "security", "style")
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		const cancelKey = "POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel"
		fin := f.finisher(t)
		end := func(id int) {
			if err := runstate.Fail(ctx, db.Client, id, "The review failed.", "test"); err != nil {
				t.Fatal(err)
			}
			if err := fin.FinishAll(ctx); err != nil {
				t.Fatal(err)
			}
		}
		end(two[0].ID)
		if n := f.sim.CallCount(cancelKey); n != 0 {
			t.Fatalf("the shared Actions run was cancelled %d times while the other review ran", n)
		}
		if got := db.Run.GetX(ctx, two[0].ID); !got.CheckCompleted {
			t.Fatal("the failed run's check run was not completed")
		}
		end(two[1].ID)
		if n := f.sim.CallCount(cancelKey); n != 1 {
			t.Fatalf("the Actions run was cancelled %d times after its last review ended, want 1", n)
		}
	})
}

// Enterprise Server (no return_run_details): the shared dispatch is made
// again without the key, as for a run alone; the runs keep Actions run id 0
// and the one Actions run's title names all of them, for the job fetch and
// workflow_run to find them by.
func TestDispatchSharedOnEnterpriseServer(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixtureWith(t, db, nil, ghsim.Options{EnterpriseVersion: "3.19.0"})
		three := f.enqueueReviewers(t, "security", "style", "correctness")
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		if n := f.sim.CallCount(dispatchKey); n != 2 {
			t.Fatalf("%d dispatch calls, want 2 (refused for return_run_details, then without it)", n)
		}
		wrs := f.sim.Runs()
		if len(wrs) != 1 {
			t.Fatalf("%d Actions runs, want 1", len(wrs))
		}
		var ids []string
		for _, r := range three {
			got := db.Run.GetX(ctx, r.ID)
			if got.Status != run.StatusDispatched || got.ActionsRunID != 0 {
				t.Errorf("run %d: %s, Actions run %d (want dispatched, found later by run-name)", r.ID, got.Status, got.ActionsRunID)
			}
			ids = append(ids, strconv.Itoa(r.ID))
		}
		if want := "Chakshu run " + strings.Join(ids, ",") + " (PR #" + strconv.Itoa(f.pr) + ")"; wrs[0].DisplayTitle != want {
			t.Fatalf("title %q, want %q", wrs[0].DisplayTitle, want)
		}
	})
}

// A PR that moved on while its runs waited: each run is cancelled as moved,
// the PR read once for all of them, and nothing is dispatched.
func TestDispatchCancelsASharedGroupWhenPRMoved(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		three := f.enqueueReviewers(t, "security", "style", "correctness")
		for _, r := range three {
			db.Run.UpdateOne(r).SetAttempts(1).ExecX(ctx) // an earlier attempt was put back: each reads the PR
		}
		f.sim.Commit(repoName, "feature", map[string]string{"c.go": "package main\n"}, "moved")
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		for _, r := range three {
			if got := db.Run.GetX(ctx, r.ID); got.Status != run.StatusCancelled {
				t.Errorf("run %d: %s, want cancelled", r.ID, got.Status)
			}
		}
		if n := f.sim.CallCount("GET /repos/{owner}/{repo}/pulls/{pull_number}"); n != 1 {
			t.Errorf("the PR was read %d times, want once for the three runs", n)
		}
		if n := f.sim.CallCount(dispatchKey); n != 0 {
			t.Errorf("%d dispatches for runs whose PR moved", n)
		}
	})
}
