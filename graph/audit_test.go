package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/auditentry"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Asking for a reviewer sync (one installation or all) and turning a
// learning off and on are recorded with who, what and where; a refused
// toggle records nothing and changes nothing.
func TestAuditLogSyncAndLearnings(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		carol, alice, bob := e.login("carol"), e.login("alice"), e.login("bob")

		carol.do(`mutation($i: ID) { syncReviewers(installationID: $i) }`, map[string]any{"i": e.inst.ID}).ok(t)
		carol.do(`mutation { syncReviewers }`, nil).ok(t)

		var created struct {
			CreateLearning struct{ ID string }
		}
		alice.do(`mutation($r: ID!) { createLearning(input: {repositoryID: $r, scope: repo, glob: "**/*.go", directive: "Prefer errors.Is"}) { id } }`,
			map[string]any{"r": e.repoA.ID}).into(t, &created)
		id := created.CreateLearning.ID
		const toggle = `mutation($id: ID!, $on: Boolean!) { setLearningEnabled(id: $id, enabled: $on) { enabled } }`
		if r := bob.do(toggle, map[string]any{"id": id, "on": false}); r.code() != "FORBIDDEN" {
			t.Fatalf("a reader turned a learning off: %s %s", r.code(), r.raw)
		}
		alice.do(toggle, map[string]any{"id": id, "on": false}).ok(t)
		// Adding it again turns it back on, and says so.
		alice.do(`mutation($r: ID!) { createLearning(input: {repositoryID: $r, scope: repo, glob: "**/*.go", directive: "Prefer errors.Is"}) { id } }`,
			map[string]any{"r": e.repoA.ID}).ok(t)

		var got []string
		for _, a := range db.AuditEntry.Query().Order(auditentry.ByID()).AllX(ctx) {
			got = append(got, strings.Join([]string{a.Actor, a.Action, itoa(a.InstallationID), a.Target, a.Detail}, " | "))
		}
		want := []string{
			"carol | installation.reviewers_sync | " + itoa(e.inst.ID) + " | installation acme | reviewers repository acme/chakshu-reviewers",
			"carol | installation.reviewers_sync | 0 | every installation | 1 installations",
			"alice | learning.disable | " + itoa(e.inst.ID) + " | learning " + id + " (acme/api **/*.go) | was enabled: \"Prefer errors.Is\"",
			"alice | learning.enable | " + itoa(e.inst.ID) + " | learning " + id + " (acme/api **/*.go) | added again: \"Prefer errors.Is\"",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("audit log:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}
	})
}
