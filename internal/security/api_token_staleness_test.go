package security

import (
	"fmt"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/graph"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestAPITokenAccessIsRefreshedHourly: a token acted with the access its
// owner had at their last portal login, forever. Now its owner's access is
// refreshed from GitHub at least hourly while the token is used: alice,
// removed from acme/api on GitHub, reads nothing through her token an hour
// later, though she never signs in again; an org owner demoted on GitHub
// loses the installation's admin rights the same way.
func TestAPITokenAccessIsRefreshedHourly(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.Sim.SetOrgRole("globex", "olivia", "admin")
		aliceTok, _ := w.Login("alice").Token("read")
		oliviaTok, _ := w.Login("olivia").Token("read")
		runs := func(c *clientT) int { return totalCounts(t, c.c, `{ q0: runs { totalCount } }`, 1)[0] }
		a, o := &clientT{"alice's token", aliceTok}, &clientT{"olivia's token", oliviaTok}
		if n := runs(a); n != 1 {
			t.Fatalf("alice's token: %d runs, want acme/api's 1", n)
		}
		if n := runs(o); n != 1 {
			t.Fatalf("olivia's token: %d runs, want globex's 1", n)
		}
		w.Sim.SetPermission("acme/api", "alice", "")
		w.Sim.SetOrgRole("globex", "olivia", "")
		w.Clock.Advance(30 * time.Minute)
		if n := runs(a); n != 1 {
			t.Errorf("alice's token after 30 min: %d runs, want the cached 1 (refresh at most hourly)", n)
		}
		w.Clock.Advance(31 * time.Minute)
		if n := runs(a); n != 0 {
			t.Errorf("alice's token an hour after her removal: %d runs, want 0", n)
		}
		if n := runs(o); n != 0 {
			t.Errorf("olivia's token an hour after losing ownership: %d runs, want 0", n)
		}
		if me := oliviaTok.Me(); me.User == nil || me.User.IsAdmin {
			t.Errorf("olivia's token: /api/me %+v, want no admin", me.User)
		}
	})
}

// TestAPITokensExpireByDefault: a token made without expiresAt expires in
// 90 days (the create payload says when), and is refused after.
func TestAPITokensExpireByDefault(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		alice := w.Login("alice")
		tok, r := alice.Token("read")
		var d struct {
			CreateAPIToken struct {
				APIToken struct{ ExpiresAt *time.Time }
			}
		}
		r.OK(t, &d)
		exp := d.CreateAPIToken.APIToken.ExpiresAt
		if exp == nil || exp.Sub(time.Now()) < graph.DefaultTokenLifetime-time.Minute || exp.Sub(time.Now()) > graph.DefaultTokenLifetime+time.Minute {
			t.Fatalf("expiresAt = %v, want about 90 days from now", exp)
		}
		// Keep alice's access fresh so only the expiry decides.
		w.Sim.SetPermission("acme/api", "alice", "write")
		w.Clock.Advance(graph.DefaultTokenLifetime - time.Hour)
		if r := tok.Do(`{ runs { totalCount } }`, nil); r.Status != 200 {
			t.Errorf("an hour before expiry: %d %s", r.Status, r.Raw)
		}
		w.Clock.Advance(time.Hour + time.Second)
		if r := tok.Do(`{ runs { totalCount } }`, nil); r.Status != 401 {
			t.Errorf("after expiry: %d %s, want 401", r.Status, r.Raw)
		}
	})
}

// TestAdminsListAndRevokeAnyToken: a configured admin lists every user's
// tokens and revokes one; the revoked token is refused at once.
func TestAdminsListAndRevokeAnyToken(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		aliceTok, _ := w.Login("alice").Token("write")
		carol := w.Login("carol")
		var d struct {
			APITokens struct {
				Edges []struct {
					Node struct {
						ID    string
						Owner struct{ Login string }
					}
				}
			}
		}
		carol.Do(`{ apiTokens(first: 100) { edges { node { id owner { login } } } } }`, nil).OK(t, &d)
		var id string
		owners := map[string]bool{}
		for _, e := range d.APITokens.Edges {
			owners[e.Node.Owner.Login] = true
			if e.Node.Owner.Login == "alice" {
				id = e.Node.ID
			}
		}
		if !owners["alice"] || !owners["bob"] {
			t.Fatalf("admin's token list: %v, want alice's and bob's", owners)
		}
		carol.Do(`mutation($id: ID!) { revokeAPIToken(id: $id) { revokedAt } }`, map[string]any{"id": id}).OK(t, nil)
		if r := aliceTok.Do(`{ runs { totalCount } }`, nil); r.Status != 401 {
			t.Errorf("revoked token: %d %s, want 401", r.Status, fmt.Sprint(r.Raw))
		}
	})
}
