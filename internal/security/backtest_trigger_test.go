package security

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/backtest"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const reviewersRepo = "acme/chakshu-reviewers"

// TestBacktestNeedsWriteAndNoFork: a backtest spends the installation's
// model budget on shadow reviews of its last reviewed PRs (possibly
// private) and names them on the PR, so a change of reviewers is
// backtested only when a person with write access (or on the allow-list)
// opened it from the reviewers repository itself. Anyone's PR, forks
// included, used to start one. A refused PR is told why, once.
func TestBacktestNeedsWriteAndNoFork(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newReplyWorld(t, db, nil)
		w.sim.CreateRepo("acme", "chakshu-reviewers", map[string]string{"reviewers/sec/CLAUDE.md": "# Security\n"})
		w.sim.SetPermission(reviewersRepo, "alice", "write")
		w.sim.SetPermission(reviewersRepo, "mallory", "read")
		w.sim.SetPermission(reviewersRepo, "ally", "read")
		w.drain()
		open := func(branch, author string) int {
			w.sim.CreateBranch(reviewersRepo, branch, "main")
			w.sim.Commit(reviewersRepo, branch, map[string]string{"reviewers/sec/CLAUDE.md": "# Security\n" + branch + "\n"}, "change sec")
			n := w.sim.OpenPR(reviewersRepo, branch, "main", "Tune sec", "", author, false)
			w.drain()
			return n
		}
		backtests := func(n int) int {
			return db.Backtest.Query().Where(backtest.ReviewersRepo(reviewersRepo), backtest.PrNumber(n)).CountX(ctx)
		}
		told := func(n int) int {
			c := 0
			for _, ic := range w.sim.IssueComments(reviewersRepo, n) {
				if strings.Contains(ic.Body, "did not backtest") {
					c++
				}
			}
			return c
		}

		byReader := open("by-reader", "mallory")
		if got := backtests(byReader); got != 0 {
			t.Errorf("a PR by a read-only user started %d backtests", got)
		}
		if got := told(byReader); got != 1 {
			t.Errorf("the read-only user's PR was told why %d times, want once", got)
		}
		// A push to it is refused again, without a second comment.
		w.sim.Commit(reviewersRepo, "by-reader", map[string]string{"reviewers/sec/CLAUDE.md": "# Security\nagain\n"}, "again")
		w.drain()
		if got, n := backtests(byReader), told(byReader); got != 0 || n != 1 {
			t.Errorf("after a push: %d backtests, told %d times", got, n)
		}

		if got := backtests(open("by-writer", "alice")); got != 1 {
			t.Errorf("a PR by a writer started %d backtests, want 1", got)
		}
		if got := backtests(open("by-allowed", "ally")); got != 1 {
			t.Errorf("a PR by an allow-listed user started %d backtests, want 1", got)
		}

		// The same PR as a fork's: GitHub's payload names another head
		// repository. Replayed as a writer's to show the fork alone is refused.
		ev := db.WebhookEvent.Query().Where(webhookevent.Event("pull_request"), webhookevent.Action("opened"),
			webhookevent.Repository(reviewersRepo)).Order(webhookevent.ByID()).FirstX(ctx)
		var p map[string]any
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			t.Fatal(err)
		}
		pr := p["pull_request"].(map[string]any)
		pr["user"] = map[string]any{"login": "alice", "id": 1, "type": "User"}
		pr["author_association"] = "COLLABORATOR"
		pr["head"].(map[string]any)["repo"] = map[string]any{"id": 999999, "full_name": "mallory/chakshu-reviewers"}
		payload, _ := json.Marshal(p)
		db.WebhookEvent.Create().SetDeliveryID("fork-replay").SetEvent("pull_request").SetAction("opened").
			SetInstallationID(ev.InstallationID).SetRepository(reviewersRepo).SetPayload(payload).ExecX(ctx)
		w.drain()
		if got := backtests(byReader); got != 0 {
			t.Errorf("a fork's PR by a writer started %d backtests", got)
		}
	})
}
