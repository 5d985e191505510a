package worker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A shadow run's dispatch leads the workflow template to check out the older
// commit it replays, though its PR has moved on and closed: the checkout
// fetches the dispatched commit by its SHA (sandbox.Checkout follows the
// workflow file as GitHub's runner does, and ghsim serves what GitHub's git
// serves). A commit a force push dropped is served until garbage collection,
// then the checkout fails. The template before this change, which fetched
// refs/pull/<n>/head and required it to be the dispatched commit, fails on
// the same run.
func TestShadowRunChecksOutTheReplayedCommit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, map[string]string{"main.go": "package main\n", ".github/workflows/chakshu.yml": action.WorkflowTemplate})
		old := f.head
		oldMain, _ := f.sim.FileAt(repoName, old, "main.go")
		dropped := f.sim.Commit(repoName, "feature", map[string]string{"later.go": "package main // dropped\n"}, "later")
		f.sim.ForcePush(repoName, "feature", map[string]string{"later.go": "package main // rewritten\n"})
		f.sim.ClosePR(repoName, f.pr, "alice")
		if now := f.sim.PR(repoName, f.pr).HeadSHA; now == old || now == dropped {
			t.Fatalf("the PR's head is still %s", now)
		}

		dispatch := func(head string) (string, map[string]string, error) {
			t.Helper()
			rn := f.shadowRun(t, head)
			f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
			got := db.Run.GetX(ctx, rn.ID)
			if got.Status != run.StatusDispatched {
				t.Fatalf("shadow run at %s: %s (%s)", head, got.Status, got.FailureReason)
			}
			wr, ok := f.sim.Run(got.ActionsRunID)
			if !ok {
				t.Fatalf("no Actions run %d", got.ActionsRunID)
			}
			return sandbox.Checkout(f.sim, wr)
		}

		sha, files, err := dispatch(old)
		if err != nil || sha != old || files["main.go"] != oldMain {
			t.Fatalf("checkout of the replayed commit: %s %v; want %s", sha, err, old)
		}
		if _, ok := files["later.go"]; ok {
			t.Errorf("the checkout holds a later commit's file")
		}
		// Dropped by the force push: still served until collected.
		if sha, files, err = dispatch(dropped); err != nil || sha != dropped || files["later.go"] != "package main // dropped\n" {
			t.Fatalf("checkout of a force-pushed-away commit before collection: %s %v", sha, err)
		}
		if n := f.sim.CollectGarbage(repoName); n != 1 {
			t.Fatalf("collected %d commits, want the dropped one", n)
		}
		db.Run.Update().Where(run.Shadow(true)).SetStatus(run.StatusSucceeded).ExecX(ctx)
		if _, _, err = dispatch(dropped); err == nil || !strings.Contains(err.Error(), "not our ref "+dropped) {
			t.Fatalf("checkout of a collected commit: %v, want git's not our ref", err)
		}

		// The previous template: refs/pull/<n>/head, checked against head_sha.
		prev := strings.Replace(action.WorkflowTemplate, "ref: ${{ inputs.head_sha }}", "ref: refs/pull/${{ inputs.pr_number }}/head", 1)
		if prev == action.WorkflowTemplate {
			t.Fatal("the template's checkout ref changed; update this test")
		}
		f.sim.Commit(repoName, "main", map[string]string{".github/workflows/chakshu.yml": prev}, "the previous template")
		db.Run.Update().Where(run.Shadow(true)).SetStatus(run.StatusSucceeded).ExecX(ctx)
		if _, _, err = dispatch(old); err == nil || !strings.Contains(err.Error(), "not at the dispatched commit "+old) {
			t.Fatalf("previous template on a moved PR: %v, want the head check to fail", err)
		}
	})
}
