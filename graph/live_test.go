package graph

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// cancelRun runs in the request's transaction; the run_updated wake-up comes
// from the run state machine once that transaction commits, and a refused
// cancel wakes nobody.
func TestCancelRunPublishesRunUpdated(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		c := e.login("alice")
		wake, stop := e.bus.Subscribe(wakeup.TopicRunUpdated)
		defer stop()
		r := e.seedQueued(e.repoA, "alice")
		<-wake // the seeded run was queued
		const q = `mutation($id: ID!) { cancelRun(id: $id) { status } }`
		if res := c.do(q, map[string]any{"id": r.ID}); len(res.Errors) != 0 {
			t.Fatalf("cancelRun: %s", res.raw)
		}
		select {
		case <-wake:
		default:
			t.Fatal("cancelRun did not publish run_updated")
		}
		if got := db.Run.GetX(context.Background(), r.ID).Status; got != run.StatusCancelled {
			t.Fatalf("status %s", got)
		}
		if res := c.do(q, map[string]any{"id": r.ID}); res.code() == "" {
			t.Fatalf("second cancel accepted: %s", res.raw)
		}
		select {
		case <-wake:
			t.Fatal("a refused cancel published run_updated")
		default:
		}
	})
}
