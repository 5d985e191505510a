package runnerapi

import (
	"context"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/worker"
)

// Reviewers sharing one Actions run (DESIGN §2.3): the runner fetches each
// run's job with the run's one OIDC token, each fetch checked against that
// run's stored Actions run and moving only that run to running, with a run
// token of its own; a replay gets nothing, and the token of another Actions
// run gets no job of this one. Where the dispatch returned no run id
// (Enterprise Server), each run is found on GitHub by the run-name, which
// names every run sharing it, and one not named is not taken.
func TestJobsOfASharedActionsRun(t *testing.T) {
	for _, details := range []bool{true, false} {
		t.Run(map[bool]string{true: "run details", false: "no run details"}[details], func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) { sharedJobs(t, db, details) })
		})
	}
}

func sharedJobs(t *testing.T, db *store.DB, details bool) {
	ctx := context.Background()
	w := newWorld(t, db)
	head := w.sim.PR(repoName, w.pr).HeadSHA
	newRun := func(rv *ent.Reviewer) *ent.Run {
		return db.Run.Create().SetRepository(w.repo).SetReviewer(rv).SetKind(run.KindReview).SetTrigger(run.TriggerComment).
			SetPrNumber(w.pr).SetHeadSha(head).SetStatus(run.StatusDispatched).SaveX(ctx)
	}
	a, b := newRun(w.rv), newRun(w.perf)
	det, _, err := w.inst.REST.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", "chakshu.yml",
		github.CreateWorkflowDispatchEventRequest{Ref: "main", ReturnRunDetails: github.Ptr(true), Inputs: worker.DispatchInputs(a, b)})
	if err != nil {
		t.Fatal(err)
	}
	shared := det.GetWorkflowRunID()
	if details {
		db.Run.Update().Where(run.IDIn(a.ID, b.ID)).SetActionsRunID(shared).ExecX(ctx)
	}
	style := db.Reviewer.Create().SetName("style").SetInstallation(w.ins).SaveX(ctx)
	alone := newRun(style) // the same PR and commit, dispatched by itself
	alone = w.startWorkflow(alone)
	if !details {
		db.Run.UpdateOne(alone).SetActionsRunID(0).ExecX(ctx)
	}
	tok := w.token(&ent.Run{ActionsRunID: shared})
	if st, _, e := w.fetchJob(alone, tok); st != 403 {
		t.Fatalf("details %v: another Actions run's token for run %d: %d %+v, want 403", details, alone.ID, st, e)
	}
	if st, _, e := w.fetchJob(a, w.token(&ent.Run{ActionsRunID: alone.ActionsRunID})); details && st != 403 {
		t.Fatalf("details %v: run %d's token for run %d: %d %+v, want 403", details, alone.ID, a.ID, st, e)
	}
	tokens := map[string]bool{}
	for _, rn := range []*ent.Run{a, b} {
		st, job, e := w.fetchJob(rn, tok)
		if st != 200 || job == nil || job.RunID != int64(rn.ID) || tokens[job.RunToken] {
			t.Fatalf("details %v: run %d: %d %+v, want its own job", details, rn.ID, st, e)
		}
		tokens[job.RunToken] = true
		got := db.Run.GetX(ctx, rn.ID)
		if got.Status != run.StatusRunning || got.ActionsRunID != shared {
			t.Fatalf("details %v: run %d: %s in Actions run %d, want running in %d", details, rn.ID, got.Status, got.ActionsRunID, shared)
		}
	}
	if st, _, _ := w.fetchJob(a, tok); st == 200 {
		t.Fatalf("details %v: a replayed fetch got run %d's job again", details, a.ID)
	}
	if got := db.Run.GetX(ctx, alone.ID); got.Status != run.StatusDispatched || (!details && got.ActionsRunID != 0) {
		t.Fatalf("details %v: the run alone: %s in Actions run %d", details, got.Status, got.ActionsRunID)
	}
}
