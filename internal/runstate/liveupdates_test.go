package runstate_test

import (
	"context"
	"errors"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// Every status change, wherever it is written, wakes the portal's live
// updates once it is committed, and nothing else does.
func TestStatusChangesWakeLiveUpdates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		repo, revs := seed(t, db)
		bus := wakeup.NewLocal()
		runstate.NotifyLiveUpdates(db.Client, bus)
		wake, stop := bus.Subscribe(wakeup.TopicRunUpdated)
		defer stop()
		// seen says whether a wake-up is pending (Local delivers synchronously) and drains it.
		seen := func() bool {
			select {
			case <-wake:
				return true
			default:
				return false
			}
		}
		expect := func(step string, want bool, id int, status run.Status) {
			t.Helper()
			if got := seen(); got != want {
				t.Fatalf("%s: woken %v, want %v", step, got, want)
			}
			if got := db.Run.GetX(ctx, id).Status; got != status {
				t.Fatalf("%s: status %s, want %s", step, got, status)
			}
		}
		created, _, err := runstate.Enqueue(ctx, db, nil, runstate.Request{RepositoryID: repo, ReviewerIDs: revs, PRNumber: 1, HeadSHA: "h", Trigger: run.TriggerPortal})
		if err != nil || len(created) != 2 {
			t.Fatalf("enqueue: %v", err)
		}
		a, b := created[0].ID, created[1].ID
		expect("queued", true, a, run.StatusQueued)
		path := []run.Status{run.StatusQueued, run.StatusDispatched, run.StatusRunning, run.StatusPublishing, run.StatusSucceeded}
		for i := 1; i < len(path); i++ {
			if err := runstate.Transition(ctx, db.Client, a, runstate.Change{From: path[i-1 : i], To: path[i]}); err != nil {
				t.Fatal(err)
			}
			expect(string(path[i]), true, a, path[i])
		}
		// A transition that finds the run elsewhere changes nothing and wakes nobody.
		if err := runstate.Fail(ctx, db.Client, a, "late", ""); !errors.Is(err, runstate.ErrConflict) {
			t.Fatalf("fail of a finished run: %v", err)
		}
		expect("conflict", false, a, run.StatusSucceeded)
		// Writes that leave the status alone are not status changes.
		db.Run.UpdateOneID(b).SetCostUsd(0.5).ExecX(ctx)
		expect("cost update", false, b, run.StatusQueued)

		// Inside a transaction: nothing until it commits, nothing if it rolls back.
		tx, err := db.Tx(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := runstate.Transition(ctx, tx.Client(), b, runstate.Change{From: runstate.Active, To: run.StatusCancelled}); err != nil {
			t.Fatal(err)
		}
		if seen() {
			t.Fatal("woken before the transaction committed")
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		expect("rolled back", false, b, run.StatusQueued)
		err = db.WithTx(ctx, func(tx *ent.Tx) error {
			return runstate.Transition(ctx, tx.Client(), b, runstate.Change{From: runstate.Active, To: run.StatusCancelled})
		})
		if err != nil {
			t.Fatal(err)
		}
		expect("cancelled, committed", true, b, run.StatusCancelled)

		created, _, err = runstate.Enqueue(ctx, db, nil, runstate.Request{RepositoryID: repo, ReviewerIDs: revs[:1], PRNumber: 2, HeadSHA: "h", Trigger: run.TriggerPortal})
		if err != nil || len(created) != 1 {
			t.Fatalf("enqueue: %v", err)
		}
		expect("queued again", true, created[0].ID, run.StatusQueued)
		if err := runstate.Fail(ctx, db.Client, created[0].ID, "The review could not start.", ""); err != nil {
			t.Fatal(err)
		}
		expect("failed", true, created[0].ID, run.StatusFailed)
	})
}
