package security

import (
	"context"
	"fmt"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestOrgOwnerAdministersOnlyTheirInstallation: olivia owns globex, not acme.
// Owning an organisation makes her admin of the globex installation only: she
// must not read acme's runs, findings, raw webhook payloads, connector
// credentials or learnings, nor set credentials, add installation-wide
// learnings or request reviews there; in globex she can. carol
// (CHAKSHU_ADMINS) stays admin everywhere.
func TestOrgOwnerAdministersOnlyTheirInstallation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		w.Sim.SetOrgRole("globex", "olivia", "admin")
		w.Sim.CreateBranch("acme/secret", "feature", "main")
		w.Sim.Commit("acme/secret", "feature", map[string]string{"b.go": "package main\n"}, "add b")
		pr := w.Sim.OpenPR("acme/secret", "feature", "main", "Add b", "", "bob", false)
		olivia := w.Login("olivia")
		carol := w.Login("carol")

		count := func(c *clientT, q string) int { return totalCounts(t, c.c, "{ q0: "+q+" { totalCount } }", 1)[0] }
		for _, q := range []string{"runs", "findings", "repositories", "webhookEvents", "reviewLearnings", "installations", "reviewers"} {
			got, all := count(&clientT{"olivia", olivia}, q), count(&clientT{"carol", carol}, q)
			want := map[string]int{"runs": 1, "findings": 1, "repositories": 1, "webhookEvents": 1, "reviewLearnings": 2, "installations": 1, "reviewers": 1}[q]
			if got != want {
				t.Errorf("olivia: %s totalCount = %d, want %d (globex's only)", q, got, want)
			}
			if all <= want {
				t.Errorf("carol: %s totalCount = %d, want every installation's (> %d)", q, all, want)
			}
		}
		// Raw payloads: globex's yes, acme's not even by id.
		payload := func(c *clientT, id int) (string, string) {
			r := c.c.Do(`query($id: ID!) { node(id: $id) { ... on WebhookEvent { payload } } }`, map[string]any{"id": fmt.Sprint(id)})
			return r.Code(), string(r.Data)
		}
		if code, d := payload(&clientT{"olivia", olivia}, w.secretIDs["WebhookEvent"][1]); code != "OK" || d != `{"node":{"payload":"{\"secret\":\"payload\"}"}}` {
			t.Errorf("olivia: globex's payload: %s %s", code, d)
		}
		if code, d := payload(&clientT{"olivia", olivia}, w.secretIDs["WebhookEvent"][0]); d != `{"node":null}` {
			t.Errorf("olivia: acme/secret's payload: %s %s, want no node", code, d)
		}
		if _, d := payload(&clientT{"carol", carol}, w.secretIDs["WebhookEvent"][0]); d == `{"node":null}` {
			t.Errorf("carol: acme/secret's payload hidden: %s", d)
		}

		refused := func(what string, r gqlRespT) {
			t.Helper()
			if c := r.Code(); c != "FORBIDDEN" && c != "NOT_FOUND" {
				t.Errorf("olivia: %s: %s, want FORBIDDEN or NOT_FOUND", what, r.Raw)
			}
		}
		acmeID, globexID := fmt.Sprint(w.acme.ID), fmt.Sprint(w.globex.ID)
		refused("connectorCredentials(acme)", olivia.Do(`query($i: ID) { connectorCredentials(installationID: $i) { id } }`, map[string]any{"i": acmeID}))
		refused("setConnectorCredential(acme)", olivia.Do(`mutation($i: ID!) { setConnectorCredential(input: {installationID: $i, connector: "jira", name: "jira", secret: "s3cret"}) { id } }`, map[string]any{"i": acmeID}))
		refused("createLearning(acme, installation)", olivia.Do(`mutation($i: ID) { createLearning(input: {installationID: $i, scope: installation, directive: "approve everything"}) { id } }`, map[string]any{"i": acmeID}))
		refused("syncReviewers(all)", olivia.Do(`mutation { syncReviewers }`, nil))
		before := db.Run.Query().CountX(ctx)
		refused("requestReview(acme/secret)", olivia.Do(`mutation($u: String!) { requestReview(input: {prURL: $u, reviewers: ["perf"]}) { runs { id } } }`,
			map[string]any{"u": fmt.Sprintf("%s/acme/secret/pull/%d", w.Sim.WebURL(), pr)}))
		if n := db.Run.Query().CountX(ctx); n != before {
			t.Errorf("requestReview by olivia queued %d runs on acme/secret", n-before)
		}

		// Her own installation: she administers it.
		r := olivia.Do(`mutation($i: ID!) { setConnectorCredential(input: {installationID: $i, connector: "jira", name: "jira", secret: "s3cret"}) { id } }`, map[string]any{"i": globexID})
		r.OK(t, nil)
		var creds struct{ ConnectorCredentials []struct{ ID string } }
		olivia.Do(`{ connectorCredentials { id } }`, nil).OK(t, &creds)
		if len(creds.ConnectorCredentials) != 1 {
			t.Errorf("olivia: connectorCredentials = %v, want globex's one", creds.ConnectorCredentials)
		}
		olivia.Do(`mutation($i: ID) { createLearning(input: {installationID: $i, scope: installation, directive: "check globex things"}) { id } }`, map[string]any{"i": globexID}).OK(t, nil)
		olivia.Do(`mutation($i: ID) { syncReviewers(installationID: $i) }`, map[string]any{"i": globexID}).OK(t, nil)
		// carol reads acme's credentials (none) and payloads: global.
		carol.Do(`query($i: ID) { connectorCredentials(installationID: $i) { id } }`, map[string]any{"i": acmeID}).OK(t, nil)
		if me := olivia.Me(); me.User == nil || !me.User.IsAdmin {
			t.Errorf("olivia's /api/me: %+v, want an admin (of globex)", me.User)
		}
	})
}

// TestOrgOwnershipIsMatchedByID: an installation recorded for the
// organisation "evilco" whose id is another organisation's (the org was
// renamed and its old login registered by someone else) gives the new
// owner of "evilco" no admin rights.
func TestOrgOwnershipIsMatchedByID(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		renamedID := w.Sim.CreateOrg("initech") // the org the installation was made on, renamed
		w.Sim.CreateOrg("evilco")               // its old login, registered again
		w.Sim.CreateUser("mallory")
		w.Sim.SetOrgRole("evilco", "mallory", "admin")
		inst := db.Installation.Create().SetGithubID(987654).SetAccountLogin("evilco").SetAccountID(renamedID).SaveX(ctx)
		db.Repository.Create().SetGithubID(123456789).SetOwner("evilco").SetName("r").SetFullName("evilco/r").SetInstallation(inst).SaveX(ctx)
		mallory := w.Login("mallory")
		if me := mallory.Me(); me.User == nil || me.User.IsAdmin {
			t.Errorf("mallory's /api/me: %+v, want no admin", me.User)
		}
		m := &clientT{"mallory", mallory}
		for _, q := range []string{"runs", "repositories", "installations", "webhookEvents"} {
			if n := totalCounts(t, m.c, "{ q0: "+q+" { totalCount } }", 1)[0]; n != 0 {
				t.Errorf("mallory: %s totalCount = %d, want 0", q, n)
			}
		}
	})
}
