package events_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// An Actions run several reviewers share (DESIGN §2.3) is cancelled: the
// workflow_run completed event fails each of its runs that had no result
// yet, and leaves the one that reported alone. Where the dispatch returned no
// run id (Enterprise Server), the runs are found by the run-name, which names
// every run of the shared Actions run.
func TestWorkflowRunCancelledFailsOnlyUnfinishedRunsOfASharedRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{files: map[string]string{action.WorkflowPath: action.WorkflowTemplate}})
		n := e.pr("feature", "a.go", false)
		e.drain()
		gc := e.installationClient().REST
		for _, recorded := range []bool{true, false} {
			var rs []*ent.Run
			var ids []string
			for i, status := range []run.Status{run.StatusDispatched, run.StatusRunning, run.StatusPublishing} {
				rv := e.reviewer(fmt.Sprintf("r%v%d", recorded, i), nil)
				r := db.Run.Create().SetRepository(e.repo).SetReviewer(rv).SetPrNumber(n).SetHeadSha("x").
					SetTrigger(run.TriggerComment).SetStatus(status).SaveX(ctx)
				rs = append(rs, r)
				ids = append(ids, fmt.Sprint(r.ID))
			}
			det, _, err := gc.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", "chakshu.yml", github.CreateWorkflowDispatchEventRequest{
				Ref: "main", Inputs: map[string]any{"run_id": ids[0], "run_ids": strings.Join(ids, ","), "pr_number": fmt.Sprint(n), "head_sha": "x"},
				ReturnRunDetails: github.Ptr(true)})
			if err != nil {
				t.Fatal(err)
			}
			id := det.GetWorkflowRunID()
			if recorded {
				db.Run.Update().Where(run.IDIn(rs[0].ID, rs[1].ID, rs[2].ID)).SetActionsRunID(id).ExecX(ctx)
			}
			e.sim.CompleteRun(id, "cancelled")
			e.drain()
			for i, r := range rs {
				got := db.Run.GetX(ctx, r.ID)
				want, reason := run.StatusFailed, "The Actions run was cancelled before it sent a result."
				if i == 2 {
					want, reason = run.StatusPublishing, ""
				}
				if got.Status != want || got.FailureReason != reason {
					t.Errorf("recorded %v, run %d: %s %q, want %s %q", recorded, r.ID, got.Status, got.FailureReason, want, reason)
				}
				if want == run.StatusFailed && got.ActionsRunID != id {
					t.Errorf("recorded %v, run %d: Actions run %d, want %d", recorded, r.ID, got.ActionsRunID, id)
				}
			}
		}
	})
}
