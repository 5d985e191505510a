package worker_test

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const dispatchKey = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"

// Enterprise Server answers 422 to return_run_details: the dispatcher
// dispatches again without it (the 204 path: the run is found later by its
// run-name) and remembers the host, so the next run asks once.
func TestDispatchOnEnterpriseServer(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixtureWith(t, db, nil, ghsim.Options{EnterpriseVersion: "3.19.0"})
		d := f.dispatcher(t, "w1")
		r1 := f.enqueue(t)
		f.claimAndDispatch(t, d, "w1")
		got := db.Run.GetX(ctx, r1.ID)
		if got.Status != run.StatusDispatched || got.ActionsRunID != 0 {
			t.Fatalf("run 1: status %s actions run %d (want dispatched, found later by run-name)", got.Status, got.ActionsRunID)
		}
		if n := f.sim.CallCount(dispatchKey); n != 2 {
			t.Fatalf("%d dispatch calls for the first run, want 2 (refused, then without the key)", n)
		}
		if n := len(f.sim.Runs()); n != 1 {
			t.Fatalf("%d workflow runs started, want 1", n)
		}

		// A second run on another head: one call, no key.
		f.head = f.sim.Commit(repoName, "feature", map[string]string{"b.go": "package main\n"}, "more")
		r2 := f.enqueue(t)
		f.claimAndDispatch(t, d, "w1")
		if got := db.Run.GetX(ctx, r2.ID); got.Status != run.StatusDispatched {
			t.Fatalf("run 2: %s (%s)", got.Status, got.FailureReason)
		}
		if n := f.sim.CallCount(dispatchKey); n != 3 {
			t.Fatalf("%d dispatch calls after the second run, want 3 (the host is remembered)", n)
		}
	})
}

// github.com keeps return_run_details: one call, the run id comes back.
func TestDispatchOnGitHubComAsksForRunDetails(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		r := f.enqueue(t)
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		if got := db.Run.GetX(context.Background(), r.ID); got.ActionsRunID == 0 {
			t.Fatal("no Actions run id from return_run_details")
		}
		if n := f.sim.CallCount(dispatchKey); n != 1 {
			t.Fatalf("%d dispatch calls, want 1", n)
		}
	})
}
