package worker_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/worker"
)

// A running worker's heartbeat refreshes every lease it holds, a queued run
// being dispatched, a run being published and a webhook event being handled
// (DESIGN §3), and no lease of another worker.
func TestWorkerHeartbeatsEverythingItHolds(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		old := time.Now().Add(-time.Hour)
		queued := f.enqueue(t)
		db.Run.UpdateOne(queued).SetLeaseOwner("w1").SetHeartbeatAt(old).ExecX(ctx)
		publishing := db.Run.Create().SetRepository(f.repo).SetReviewer(f.reviewer).SetTrigger(run.TriggerComment).
			SetPrNumber(f.pr).SetHeadSha("other").SetStatus(run.StatusPublishing).SetLeaseOwner("w1").SetHeartbeatAt(old).SaveX(ctx)
		ev := db.WebhookEvent.Create().SetDeliveryID("d1").SetEvent("ping").SetPayload([]byte(`{}`)).SaveX(ctx)
		if id, err := queue.Claim(ctx, db, queue.WebhookEvents, "w1", old, 0); err != nil || id != ev.ID {
			t.Fatalf("claim the event: %d %v", id, err)
		}
		theirs := db.WebhookEvent.Create().SetDeliveryID("d2").SetEvent("ping").SetPayload([]byte(`{}`)).SaveX(ctx)
		if id, err := queue.Claim(ctx, db, queue.WebhookEvents, "w2", old, 0); err != nil || id != theirs.ID {
			t.Fatalf("claim the other worker's event: %d %v", id, err)
		}
		w, err := worker.New(worker.Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), ID: "w1",
			HeartbeatInterval: 20 * time.Millisecond, Heartbeaters: []func(context.Context, string, time.Time) error{worker.HeartbeatLeases(db)}})
		if err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		if err := w.Run(rctx); err != nil {
			t.Fatal(err)
		}
		fresh := time.Now().Add(-time.Minute)
		for name, hb := range map[string]*time.Time{
			"queued run":     db.Run.GetX(ctx, queued.ID).HeartbeatAt,
			"publishing run": db.Run.GetX(ctx, publishing.ID).HeartbeatAt,
			"webhook event":  db.WebhookEvent.GetX(ctx, ev.ID).HeartbeatAt,
		} {
			if hb == nil || hb.Before(fresh) {
				t.Errorf("%s: heartbeat %v, want refreshed", name, hb)
			}
		}
		if hb := db.WebhookEvent.GetX(ctx, theirs.ID).HeartbeatAt; hb == nil || hb.After(fresh) {
			t.Errorf("another worker's event: heartbeat %v, want untouched", hb)
		}
	})
}
