package security

import (
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestAPITokenOutlivesEightHourUserToken: GitHub App user access tokens
// expire after 8 hours and come with a refresh token (docs "Refreshing user
// access tokens"). An API token's hourly access refresh must keep working
// past that without its owner signing in again: Chakshu refreshes the
// stored user token (sealed with its refresh token) before it expires.
func TestAPITokenOutlivesEightHourUserToken(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		tok, _ := w.Login("alice").Token("read")
		runs := func() int { return totalCounts(t, tok, `{ q0: runs { totalCount } }`, 1)[0] }
		if n := runs(); n != 1 {
			t.Fatalf("alice's token: %d runs, want acme/api's 1", n)
		}
		// Nine hours on: GitHub has ended the user token from the login.
		w.Sim.ExpireTokens()
		w.Clock.Advance(9 * time.Hour)
		if n := runs(); n != 1 {
			t.Fatalf("alice's token 9 hours after her login: %d runs, want still 1 (user token refreshed)", n)
		}
		// Removed on GitHub: the refreshed token sees it within the hour.
		w.Sim.SetPermission("acme/api", "alice", "")
		w.Clock.Advance(61 * time.Minute)
		if n := runs(); n != 0 {
			t.Fatalf("alice's token after her removal: %d runs, want 0", n)
		}
	})
}
