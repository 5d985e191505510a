package events_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// An owner accepting the App's new permissions (installation,
// new_permissions_accepted) makes the tokens cut down to the old grant ask
// for their full scope at once, not after minutes; another action does not.
func TestNewPermissionsAcceptedRegrantsTokens(t *testing.T) {
	const mint = "POST /app/installations/{installation_id}/access_tokens"
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db, envOpts{})
		perms := ghsim.DefaultPermissions()
		perms["contents"] = "read"
		e.sim.SetInstallationPermissions(e.instID, perms)
		res, err := e.apps.InstallationFor(e.instID, gh.ScopeResolve)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := res.Token(ctx); err != nil { // refused, then cut down to contents: read
			t.Fatal(err)
		}
		perms["contents"] = "write"
		e.sim.SetInstallationPermissions(e.instID, perms)
		deliver := func(i int, action string) {
			body := fmt.Sprintf(`{"action":%q,"installation":{"id":%d,"account":{"login":"acme","type":"Organization"}},"sender":{"login":"acme-admin","type":"User"}}`, action, e.instID)
			e.deliver("installation", fmt.Sprintf("perm-%d", i), []byte(body))
			e.drain()
		}
		deliver(0, "unsuspend")
		before := e.sim.CallCount(mint)
		if _, err := res.Token(ctx); err != nil {
			t.Fatal(err)
		}
		if n := e.sim.CallCount(mint); n != before {
			t.Fatalf("another action renewed the token (%d mints, want %d): the test shows nothing", n, before)
		}
		deliver(1, "new_permissions_accepted")
		if _, err := res.Token(ctx); err != nil {
			t.Fatal(err)
		}
		if n := e.sim.CallCount(mint); n != before+1 {
			t.Fatalf("%d token mints after new_permissions_accepted, want %d (the full scope asked at once)", n, before+1)
		}
	})
}
