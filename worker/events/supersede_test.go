package events_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A push to a PR cancels its runs for the old head that are queued,
// dispatched or running (not one already publishing its result, not the new
// head's); closing it cancels every run not yet publishing. Each cancelled
// run says why, so the finisher puts it on the check run.
func TestPushAndCloseCancelSupersededRuns(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{})
		rv := map[run.Status]string{}
		for _, st := range []run.Status{run.StatusQueued, run.StatusDispatched, run.StatusRunning, run.StatusPublishing, run.StatusSucceeded} {
			rv[st] = e.reviewer(string(st), nil).Name
		}
		n := e.pr("feature", "a.go", false)
		e.drain()
		old := prHead(t, e, n)
		for st, name := range rv {
			db.Run.Create().SetRepository(e.repo).SetReviewerID(reviewerID(t, e, name)).
				SetPrNumber(n).SetHeadSha(old).SetTrigger(run.TriggerPortal).SetStatus(st).ExecX(ctx)
		}
		other := e.pr("other", "b.go", false) // another PR's runs are never touched
		e.drain()
		db.Run.Create().SetRepository(e.repo).SetReviewerID(reviewerID(t, e, "queued")).SetPrNumber(other).
			SetHeadSha(prHead(t, e, other)).SetTrigger(run.TriggerPortal).ExecX(ctx)

		e.sim.Commit(repoFN, "feature", map[string]string{"c.go": "package main\n"}, "more")
		e.drain()
		want(t, "after a push", []string{"dispatched/portal/cancelled", "publishing/portal/publishing",
			"queued/portal/cancelled", "running/portal/cancelled", "succeeded/portal/succeeded"}, e.runsOf(n))
		for _, r := range db.Run.Query().Where(run.PrNumber(n), run.StatusEQ(run.StatusCancelled)).AllX(ctx) {
			if !strings.Contains(r.FailureReason, "moved from "+old[:7]) {
				t.Fatalf("run %d reason %q", r.ID, r.FailureReason)
			}
		}
		want(t, "other PR", []string{"queued/portal/queued"}, e.runsOf(other))

		// A run for the new head survives the push but not the close.
		db.Run.Create().SetRepository(e.repo).SetReviewerID(reviewerID(t, e, "queued")).SetPrNumber(n).
			SetHeadSha(prHead(t, e, n)).SetTrigger(run.TriggerLabel).SetStatus(run.StatusRunning).ExecX(ctx)
		e.sim.ClosePR(repoFN, n, "alice")
		e.drain()
		want(t, "after close", []string{"dispatched/portal/cancelled", "publishing/portal/publishing",
			"queued/label/cancelled", "queued/portal/cancelled", "running/portal/cancelled", "succeeded/portal/succeeded"}, e.runsOf(n))
		closed := db.Run.Query().Where(run.PrNumber(n), run.TriggerEQ(run.TriggerLabel)).OnlyX(ctx)
		if !strings.Contains(closed.FailureReason, "closed") {
			t.Fatalf("closed reason %q", closed.FailureReason)
		}
		want(t, "other PR after close", []string{"queued/portal/queued"}, e.runsOf(other))
	})
}

func reviewerID(t *testing.T, e *env, name string) int {
	t.Helper()
	for _, r := range e.db.Reviewer.Query().AllX(context.Background()) {
		if r.Name == name {
			return r.ID
		}
	}
	t.Fatalf("no reviewer %s", name)
	return 0
}

func prHead(t *testing.T, e *env, n int) string {
	t.Helper()
	pr, _, err := e.installationClient().REST.PullRequests.Get(context.Background(), "acme", "widget", n)
	if err != nil {
		t.Fatal(err)
	}
	return pr.GetHead().GetSHA()
}
