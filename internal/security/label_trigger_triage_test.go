package security

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestLabelTriggerNeedsWrite: the triage role may add labels but is not
// write access (GitHub's repository roles), so a chakshu: label it adds
// starts no paid review; a label by a writer or an allow-listed user does,
// as their review command would. Labels were trusted like pushes before.
func TestLabelTriggerNeedsWrite(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newReplyWorld(t, db, nil)
		w.sim.CreateUser("tina")
		w.sim.SetPermission(replyRepo, "tina", "triage")
		for _, c := range []struct {
			name, login string
			runs        int
		}{
			{"triage", "tina", 0},
			{"read", "mallory", 0},
			{"write", "bob", 1},
			{"allow-list, read", "ally", 1},
		} {
			t.Run(c.name, func(t *testing.T) {
				n := w.pr("label-" + c.login)
				w.sim.AddLabel(replyRepo, n, "chakshu:review", c.login)
				w.drain()
				got := db.Run.Query().Where(run.PrNumber(n), run.TriggerEQ(run.TriggerLabel)).CountX(context.Background())
				if got != c.runs {
					t.Fatalf("label by %s (%s) started %d runs, want %d", c.login, c.name, got, c.runs)
				}
			})
		}
	})
}
