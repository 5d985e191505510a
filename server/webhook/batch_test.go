package webhook

import (
	"context"
	"errors"
	"testing"

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
		b := newBatcher(db, BatchConfig{})
		defer b.close()
		ev := func(id string) *Event { return &Event{DeliveryID: id, Event: "ping", Payload: []byte(`{}`)} }
		if _, err := insert(ctx, db, ev("old")); err != nil {
			t.Fatal(err)
		}
		check := func(batch []*storeReq, want []storeRes) {
			t.Helper()
			for _, r := range batch {
				r.done = make(chan storeRes, 1)
			}
			b.commit(batch, make([]storeRes, len(batch)))
			for i, r := range batch {
				got := <-r.done
				if want[i].err != nil {
					if got.err == nil {
						t.Errorf("delivery %q: stored, want an error", r.e.DeliveryID)
					}
				} else if got != want[i] {
					t.Errorf("delivery %d (%s): %+v, want %+v", i, r.e.DeliveryID, got, want[i])
				}
			}
		}
		// The batch as one statement or transaction.
		check([]*storeReq{{e: ev("a")}, {e: ev("old")}, {e: ev("b")}, {e: ev("a")}},
			[]storeRes{{stored: true}, {}, {stored: true}, {}})
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
		check([]*storeReq{{e: ev("c")}, {e: ev("bad")}, {e: ev("b")}, {e: ev("d")}},
			[]storeRes{{stored: true}, {err: errors.New("refused")}, {}, {stored: true}})
		check([]*storeReq{{e: ev("e")}, {e: ev("c")}}, []storeRes{{stored: true}, {}})
		if n := db.WebhookEvent.Query().Where(webhookevent.DeliveryIDIn("a", "b", "c", "d", "e", "old")).CountX(ctx); n != 6 {
			t.Fatalf("%d rows", n)
		}
	})
}
