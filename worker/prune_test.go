package worker

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/intake"
	"github.com/chakshu-dev/chakshu/internal/retention"

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
			Retention: retention.Retention{WebhookPayloads: 24 * time.Hour, WebhookEvents: 8 * 24 * time.Hour, Batch: 2},
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
		// Batches shrink further on SQLite, where the intake waits behind them.
		want := leastBatch
		if !db.Postgres() {
			want = leastBatchSQLite
		}
		if p.size.least != want {
			t.Fatalf("batches shrink to %d rows at least, want %d", p.size.least, want)
		}
	})
}

// Batches are sized by how long their slowest transaction held the write
// lock: halved at once while over the target, grown by a quarter while under
// half of it, never past the configured most nor under the least.
func TestPruneBatchSizer(t *testing.T) {
	const target = time.Millisecond
	s := newBatchSizer(500, leastBatchSQLite, target)
	if s.rows() != firstBatch {
		t.Fatalf("starts at %d rows, want %d", s.rows(), firstBatch)
	}
	steps := []struct {
		slowest time.Duration
		want    int
	}{
		{100 * time.Microsecond, 62}, // quick: +¼
		{400 * time.Microsecond, 77}, // under half the target: +¼
		{700 * time.Microsecond, 77}, // between half and the target: kept
		{target, 77},                 // at the target: kept
		{0, 96},                      // nothing written: grows
		{0, 120},
		{3 * time.Millisecond, 60},  // slow: halved
		{20 * time.Millisecond, 30}, // still slow: halved again
		{20 * time.Millisecond, 15},
		{20 * time.Millisecond, 10}, // never under the least
		{20 * time.Millisecond, 10},
		{0, 12},
	}
	for i, st := range steps {
		s.took(st.slowest)
		if s.rows() != st.want {
			t.Fatalf("step %d (slowest %v): %d rows, want %d", i, st.slowest, s.rows(), st.want)
		}
	}
	for range 100 {
		s.took(0)
	}
	if s.rows() != 500 {
		t.Fatalf("grew to %d rows, want the configured most, 500", s.rows())
	}
	s.took(2 * target)
	if s.rows() != 250 {
		t.Fatalf("slow at the most: %d rows, want 250", s.rows())
	}
	for _, most := range []int{1, 5} {
		small := newBatchSizer(most, leastBatchSQLite, target)
		if small.rows() != most {
			t.Fatalf("a most of %d starts at %d rows", most, small.rows())
		}
		small.took(2 * target)
		if small.rows() != most {
			t.Fatalf("a most of %d: %d rows after a slow batch, want %d (under the least already)", most, small.rows(), most)
		}
	}
}

// Beside a busy intake pruning still prunes everything past retention, in
// transactions of its own, and the intake stores every delivery meanwhile:
// on SQLite the two take turns at the one write connection.
func TestPrunerBesideBusyIntake(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now()
		for i := range 400 {
			db.WebhookEvent.Create().SetDeliveryID(fmt.Sprint("old-", i)).SetEvent("push").SetPayload([]byte("{}")).
				SetStatus(webhookevent.StatusDone).SetReceivedAt(now.Add(-10 * 24 * time.Hour)).ExecX(ctx)
		}
		in := intake.NewIntake(db, intake.IntakeConfig{})
		defer in.Close()
		stop := storetest.BusyIntake(t, in)
		time.Sleep(20 * time.Millisecond)
		p, err := NewPruner(PruneConfig{DB: db, Log: slog.New(slog.DiscardHandler), Pause: time.Millisecond,
			Retention: retention.Retention{WebhookEvents: 8 * 24 * time.Hour, Batch: 100}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Pass(ctx)
		stored := stop()
		if err != nil || got.WebhookEvents != 400 {
			t.Fatalf("pass pruned %+v, %v; want the 400 old events", got, err)
		}
		if n := db.WebhookEvent.Query().Where(webhookevent.DeliveryIDHasPrefix("new-")).CountX(ctx); stored == 0 || n != stored {
			t.Fatalf("the intake stored %d deliveries and %d are in the table; want them all, and some", stored, n)
		}
	})
}
