package runnerapi

import (
	"context"
	"testing"

	"github.com/google/go-github/v88/github"
	"golang.org/x/oauth2"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/worker"
)

// Where the dispatch could not return the Actions run's id (Enterprise
// Server has no return_run_details), the run is dispatched with Actions run
// id 0. The job fetch finds the Actions run the token names on GitHub: the
// App's own dispatch, whose run-name names the run, gets the job and is
// recorded; a person's hand dispatch with the same run_id does not.
func TestJobFindsTheActionsRunWithoutRunDetails(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		head := w.sim.PR(repoName, w.pr).HeadSHA
		rn := db.Run.Create().SetRepository(w.repo).SetReviewer(w.rv).SetKind(run.KindReview).SetTrigger(run.TriggerComment).
			SetPrNumber(w.pr).SetHeadSha(head).SetStatus(run.StatusDispatched).SaveX(ctx)
		dispatch := func(c *github.Client) int64 {
			t.Helper()
			before := len(w.sim.Runs())
			if _, _, err := c.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", "chakshu.yml",
				github.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: worker.DispatchInputs(rn)}); err != nil {
				t.Fatal(err)
			}
			runs := w.sim.Runs()
			if len(runs) != before+1 {
				t.Fatalf("%d Actions runs, want %d", len(runs), before+1)
			}
			var newest int64
			for _, r := range runs {
				newest = max(newest, r.ID)
			}
			return newest
		}
		alice := gh.NewREST(oauth2.NewClient(ctx, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: w.sim.UserToken("alice")})), w.sim.URL())
		byHand := dispatch(alice)
		if st, _, e := w.fetchJob(rn, w.token(&ent.Run{ActionsRunID: byHand})); st != 403 {
			t.Fatalf("hand-dispatched Actions run: %d %+v, want 403", st, e)
		}
		if got := db.Run.GetX(ctx, rn.ID); got.ActionsRunID != 0 {
			t.Fatalf("the hand-dispatched Actions run %d was recorded", got.ActionsRunID)
		}
		mine := dispatch(w.inst.REST)
		if st, job, e := w.fetchJob(rn, w.token(&ent.Run{ActionsRunID: mine})); st != 200 || job == nil {
			t.Fatalf("the App's Actions run: %d %+v, want the job", st, e)
		}
		if got := db.Run.GetX(ctx, rn.ID); got.ActionsRunID != mine {
			t.Fatalf("recorded Actions run %d, want %d", got.ActionsRunID, mine)
		}
	})
}
