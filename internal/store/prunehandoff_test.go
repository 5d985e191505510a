package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// While the webhook intake is busy, pruning's deletes and payload clears on
// SQLite ride in the intake's commits, and take no turn of their own at the
// write lock; on PostgreSQL they run in pruning's own transactions. Either
// way every row past keeping goes, and every delivery is stored.
func TestPruneRidesInBusyIntakeCommits(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		now := time.Now()
		for i := range 120 {
			age := 2 * day // payload past keeping
			if i%2 == 0 {
				age = 9 * day // row past keeping
			}
			db.WebhookEvent.Create().SetDeliveryID(fmt.Sprintf("old-%d", i)).SetEvent("push").SetPayload([]byte(`{"x":1}`)).
				SetStatus(webhookevent.StatusDone).SetReceivedAt(now.Add(-age)).ExecX(ctx)
		}
		in := store.NewIntake(db, store.IntakeConfig{CarryPruneWithin: time.Second})
		defer in.Close()
		stop := storetest.BusyIntake(t, in)
		time.Sleep(20 * time.Millisecond) // the intake is busy
		before := db.WriteWaits()["background"]
		carried := db.PruneRowsCarried()
		r := retention
		r.Batch = 20
		var total store.Pruned
		var after time.Time
		for i := 0; ; i++ {
			got, next, err := db.PruneBatch(ctx, r, now, after)
			if err != nil {
				t.Fatal(err)
			}
			after = next
			total.Add(got)
			if got.Total() == 0 || i > 50 {
				break
			}
		}
		stored := stop()
		if total.WebhookEvents != 60 || total.Payloads != 60 {
			t.Errorf("pruned %+v; want 60 rows and 60 payloads", total)
		}
		if n := db.WebhookEvent.Query().Where(webhookevent.DeliveryIDHasPrefix("new-")).CountX(ctx); n != stored {
			t.Errorf("%d deliveries in the table; the intake stored %d", n, stored)
		}
		if n := db.WebhookEvent.Query().Where(webhookevent.DeliveryIDHasPrefix("old-")).CountX(ctx); n != 60 {
			t.Errorf("%d old rows left; want the 60 whose payloads were cleared", n)
		}
		got := db.PruneRowsCarried() - carried
		if db.Postgres() {
			if got != 0 {
				t.Errorf("PostgreSQL carried %d rows in the intake's commits", got)
			}
			return
		}
		// A slow machine may stall the intake past pruning's patience now
		// and then; most of the work still rides.
		own := db.WriteWaits()["background"].Sub(before).Count
		if got < 60 {
			t.Errorf("the intake's commits carried %d of 120 rows; pruning took %d turns of its own", got, own)
		}
		t.Logf("the intake's commits carried %d of 120 rows; pruning took %d turns of its own", got, own)
	})
}

// A handed-over write that fails is undone alone: the intake's commit that
// carried it stores its deliveries, and pruning gets the error. Beside a
// quiet intake, pruning takes its write back after its patience.
func TestHandOffFailureAndQuietIntake(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, "sqlite")
	in := store.NewIntake(db, store.IntakeConfig{})
	defer in.Close()

	// Quiet: nothing takes the write; it comes back whole.
	ids := []any{int64(1), int64(2)}
	t0 := time.Now()
	n, rest, err := store.HandOff(ctx, db, func(n int) string { return "DELETE FROM webhook_events WHERE id IN (" + store.Placeholders(n) + ")" }, ids)
	if err != nil || n != 0 || len(rest) != 2 {
		t.Fatalf("beside a quiet intake: %d rows, rest %v, %v; want none done and both back", n, rest, err)
	}
	if waited := time.Since(t0); waited > 5*time.Second {
		t.Errorf("took the write back after %v", waited)
	}

	// Failing: the statement names no table.
	stop := storetest.BusyIntake(t, in)
	_, _, err = store.HandOff(ctx, db, func(n int) string { return "DELETE FROM no_such_table WHERE id IN (" + store.Placeholders(n) + ")" }, ids)
	stored := stop()
	if err == nil || !strings.Contains(err.Error(), "no_such_table") {
		t.Errorf("a failing handed-over write returned %v; want its error", err)
	}
	if stored == 0 {
		t.Fatal("the intake stored nothing")
	}
	if n := db.WebhookEvent.Query().Where(webhookevent.DeliveryIDHasPrefix("new-")).CountX(ctx); n != stored {
		t.Errorf("%d deliveries in the table; the intake stored %d", n, stored)
	}
}
