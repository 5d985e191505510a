package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/auditentry"
	"github.com/chakshu-dev/chakshu/internal/learnings"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Learnings proposed from dismissed findings are listed by status and
// accepted or discarded by people with setLearningEnabled's access: write
// on the repository (or admin of the installation); a reader is refused and
// changes nothing; a decided proposal is not decided again, and a proposal
// cannot be switched on without being accepted.
func TestLearningProposals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		alice, bob := e.login("alice"), e.login("bob")
		propose := func(findingID int, title string) string {
			l, _, err := learnings.Propose(ctx, db.Client, learnings.Proposal{InstallationID: e.inst.ID, RepositoryID: e.repoA.ID,
				FindingID: findingID, PRNumber: 7, Reviewer: "security", Path: "lib/a.go", Category: "bug", Title: title,
				Reason: "thread resolved by @bob with no change under it"})
			if err != nil {
				t.Fatal(err)
			}
			return itoa(l.ID)
		}
		p1, p2 := propose(1, "one"), propose(2, "two")

		var list struct {
			ReviewLearnings struct {
				TotalCount int
				Edges      []struct{ Node struct{ ID, Status string } }
			}
		}
		const proposed = `{ reviewLearnings(first: 10, where: {status: proposed}) { totalCount edges { node { id status } } } }`
		alice.do(proposed, nil).into(t, &list)
		if list.ReviewLearnings.TotalCount != 2 {
			t.Fatalf("proposals listed: %+v", list)
		}

		const accept = `mutation($id: ID!) { acceptLearning(id: $id) { id status enabled } }`
		const discard = `mutation($id: ID!) { discardLearning(id: $id) { id status enabled } }`
		if r := bob.do(accept, map[string]any{"id": p1}); r.code() != "FORBIDDEN" {
			t.Fatalf("a reader accepted a proposal: %s %s", r.code(), r.raw)
		}
		if r := alice.do(`mutation($id: ID!) { setLearningEnabled(id: $id, enabled: true) { enabled } }`, map[string]any{"id": p1}); r.code() != "INVALID" {
			t.Fatalf("a proposal was switched on without being accepted: %s %s", r.code(), r.raw)
		}
		var got struct {
			AcceptLearning, DiscardLearning struct {
				Status  string
				Enabled bool
			}
		}
		alice.do(accept, map[string]any{"id": p1}).into(t, &got)
		alice.do(discard, map[string]any{"id": p2}).into(t, &got)
		if a, d := got.AcceptLearning, got.DiscardLearning; a.Status != "accepted" || !a.Enabled || d.Status != "discarded" || d.Enabled {
			t.Fatalf("accepted %+v, discarded %+v", a, d)
		}
		if r := alice.do(accept, map[string]any{"id": p2}); r.code() != "INVALID" {
			t.Fatalf("a discarded proposal was accepted: %s %s", r.code(), r.raw)
		}
		alice.do(proposed, nil).into(t, &list)
		if list.ReviewLearnings.TotalCount != 0 {
			t.Errorf("decided proposals still listed: %+v", list)
		}
		var audit []string
		for _, a := range db.AuditEntry.Query().Order(auditentry.ByID()).AllX(ctx) {
			audit = append(audit, a.Actor+" | "+a.Action+" | "+a.Target+" | "+a.Detail[:strings.Index(a.Detail, ":")])
		}
		want := []string{
			"alice | learning.enable | learning " + p1 + " (acme/api lib/a.go) | accepted the proposal",
			"alice | learning.disable | learning " + p2 + " (acme/api lib/a.go) | discarded the proposal",
		}
		if strings.Join(audit, "\n") != strings.Join(want, "\n") {
			t.Errorf("audit log:\n got %s\nwant %s", strings.Join(audit, "\n     "), strings.Join(want, "\n     "))
		}
	})
}
