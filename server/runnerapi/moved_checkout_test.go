package runnerapi

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// The workflow template checks out the dispatched commit by its SHA, so a
// review whose PR moved on after dispatch no longer fails in the workflow's
// own head check: the checkout is the dispatched commit, and the job fetch is
// where the move is found, cancelling the run as moved (pr_moved), as it
// did before for a PR that moved after the checkout.
func TestJobPRMovedAfterTheTemplateCheckedOut(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		w.sim.Commit(repoName, "main", map[string]string{".github/workflows/chakshu.yml": action.WorkflowTemplate}, "the template")
		rn := w.dispatch(run.KindReview)
		newHead := w.sim.Commit(repoName, "login", map[string]string{"auth/login.go": "package auth\n"}, "more")
		wr, ok := w.sim.Run(rn.ActionsRunID)
		if !ok {
			t.Fatalf("no Actions run %d", rn.ActionsRunID)
		}
		if sha, _, err := sandbox.Checkout(w.sim, wr); err != nil || sha != rn.HeadSha {
			t.Fatalf("checkout: %s %v; want the dispatched %s, not the new head %s", sha, err, rn.HeadSha, newHead)
		}
		st, _, e := w.fetchJob(rn, w.token(rn))
		if st != 409 || e.Error.Code != codePRMoved {
			t.Fatalf("job fetch: %d %+v, want 409 pr_moved", st, e)
		}
		if got := db.Run.GetX(ctx, rn.ID); got.Status != run.StatusCancelled {
			t.Fatalf("run %s, want cancelled as moved", got.Status)
		}
	})
}
