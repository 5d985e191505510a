package intake_test

import (
	"context"
	"errors"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/intake"

	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// One batch answers each delivery on its own: stored, a duplicate (of an
// earlier row or of one in the same batch), or an error for a row the
// database refuses without failing its
// neighbours.
func TestBatchAnswersEachDelivery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		in := intake.NewIntake(db, intake.IntakeConfig{})
		defer in.Close()
		ev := func(id string) *intake.Delivery {
			return &intake.Delivery{DeliveryID: id, Event: "ping", Payload: []byte(`{}`)}
		}
		if _, err := intake.StoreDelivery(ctx, db, ev("old")); err != nil {
			t.Fatal(err)
		}
		check := func(batch []*intake.Delivery, want []intake.BatchResult) {
			t.Helper()
			for i, got := range intake.CommitBatch(in, batch) {
				if want[i].Err != nil {
					if got.Err == nil {
						t.Errorf("delivery %q: stored, want an error", batch[i].DeliveryID)
					}
				} else if got != want[i] {
					t.Errorf("delivery %d (%s): %+v, want %+v", i, batch[i].DeliveryID, got, want[i])
				}
			}
		}
		// The batch as one statement or transaction.
		check([]*intake.Delivery{ev("a"), ev("old"), ev("b"), ev("a")},
			[]intake.BatchResult{{Stored: true}, {}, {Stored: true}, {}})
		// A row the database refuses (here by a trigger) fails the batch as a
		// whole; then each row is stored on its own, and the writer goes on.
		refuse := []string{`CREATE TRIGGER refuse BEFORE INSERT ON webhook_events
			WHEN NEW.delivery_id = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END`}
		if db.Postgres() {
			refuse = []string{`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN IF NEW.delivery_id = 'bad' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`,
				`CREATE TRIGGER refuse BEFORE INSERT ON webhook_events FOR EACH ROW EXECUTE FUNCTION refuse()`}
		}
		for _, q := range refuse {
			if _, err := db.SQL.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		check([]*intake.Delivery{ev("c"), ev("bad"), ev("b"), ev("d")},
			[]intake.BatchResult{{Stored: true}, {Err: errors.New("refused")}, {}, {Stored: true}})
		check([]*intake.Delivery{ev("e"), ev("c")}, []intake.BatchResult{{Stored: true}, {}})
		if n := db.WebhookEvent.Query().Where(webhookevent.DeliveryIDIn("a", "b", "c", "d", "e", "old")).CountX(ctx); n != 6 {
			t.Fatalf("%d rows", n)
		}
	})
}
