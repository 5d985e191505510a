package worker

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// A pass prunes batch after batch until nothing is left past retention, and
// leaves what is within it.
func TestPrunerPass(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
		for i := 0; i < 5; i++ {
			db.WebhookEvent.Create().SetDeliveryID(fmt.Sprint("old-", i)).SetEvent("push").SetPayload([]byte("{}")).
				SetStatus(webhookevent.StatusDone).SetReceivedAt(now.Add(-10 * 24 * time.Hour)).ExecX(ctx)
		}
		db.WebhookEvent.Create().SetDeliveryID("new").SetEvent("push").SetPayload([]byte("{}")).
			SetStatus(webhookevent.StatusDone).SetReceivedAt(now.Add(-time.Hour)).ExecX(ctx)
		p, err := NewPruner(PruneConfig{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Pause: time.Millisecond,
			Retention: store.Retention{WebhookPayloads: 24 * time.Hour, WebhookEvents: 8 * 24 * time.Hour, Batch: 2},
			Now:       func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Pass(ctx)
		if err != nil || got.WebhookEvents != 5 || got.Total() != 5 {
			t.Fatalf("pass pruned %+v, %v; want the 5 old events", got, err)
		}
		if left := db.WebhookEvent.Query().OnlyX(ctx); left.DeliveryID != "new" || len(left.Payload) == 0 {
			t.Fatalf("left %s with %d payload bytes", left.DeliveryID, len(left.Payload))
		}
		if _, err := NewPruner(PruneConfig{Log: slog.Default()}); err == nil {
			t.Fatal("a pruner without a database was built")
		}
	})
}
