package auth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestOrgOwnersAreAdmins: through the real OAuth login against the simulator,
// an owner of an organisation the App is installed on is an admin, a plain
// member is not, an owner of an organisation without the App is not, a
// configured login is; and a change of role shows at the next access refresh.
func TestOrgOwnersAreAdmins(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		sim := ghsimtest.New(t)
		appID, _ := sim.CreateApp("chakshu")
		clientID, secret := sim.AppClientCredentials(appID)
		sim.CreateOrg("acme")
		sim.CreateOrg("globex")
		sim.CreateRepo("acme", "api", map[string]string{"a": "a"})
		sim.CreateRepo("globex", "tools", map[string]string{"a": "a"})
		sim.SetOrgRole("acme", "olivia", "admin")
		sim.SetOrgRole("acme", "mike", "member")
		sim.SetOrgRole("globex", "gina", "admin") // the App is not installed on globex
		sim.SetPermission("acme/api", "mike", "write")
		sim.SetPermission("acme/api", "carol", "read")
		sim.SetPermission("acme/api", "gina", "read")
		inst := sim.Install(appID, "acme", nil, nil)
		db.Installation.Create().SetGithubID(inst).SetAccountLogin("acme").SetAccountID(sim.UserID("acme")).ExecX(ctx)

		var now atomic.Int64
		now.Store(time.Now().Unix())
		key := make([]byte, 32)
		rand.Read(key) //nolint:errcheck
		cfg := &config.Config{
			SharedPart: config.SharedPart{GitHubURL: sim.URL(), SecretKey: key},
			WebPart:    config.WebPart{OAuthClientID: clientID, OAuthClientSecret: secret, Admins: []string{"carol"}},
		}
		srv := serveAuth(t, Config{DB: db, Settings: SettingsFrom(cfg.SharedPart, cfg.WebPart), Now: func() time.Time { return time.Unix(now.Load(), 0) }})

		login := func(who string) *http.Client {
			t.Helper()
			jar, _ := cookiejar.New(nil)
			hc := &http.Client{Jar: jar, Timeout: 10 * time.Second}
			sim.SetOAuthLogin(who)
			resp, err := hc.Get(srv.URL + "/auth/login?return_to=/done")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.Request.URL.Path != "/done" {
				t.Fatalf("login %s ended at %s (%d)", who, resp.Request.URL, resp.StatusCode)
			}
			return hc
		}
		admin := func(hc *http.Client) bool {
			t.Helper()
			resp, err := hc.Get(srv.URL + "/api/me")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var m Me
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || !m.Authenticated {
				t.Fatalf("me: %v %+v", err, m)
			}
			return m.User.IsAdmin
		}
		clients := map[string]*http.Client{}
		for who, want := range map[string]bool{"olivia": true, "mike": false, "gina": false, "carol": true} {
			clients[who] = login(who)
			if got := admin(clients[who]); got != want {
				t.Errorf("%s: admin %v, want %v", who, got, want)
			}
		}
		if n := sim.CallCount("GET /user/memberships/orgs/{org}"); n != 4 {
			t.Errorf("%d membership look-ups for 4 logins to one installed org, want 4", n)
		}

		// Roles change on GitHub: seen at the next refresh, like repository access.
		sim.SetOrgRole("acme", "olivia", "member")
		sim.SetOrgRole("acme", "mike", "admin")
		if !admin(clients["olivia"]) || admin(clients["mike"]) {
			t.Fatal("roles changed before the access refresh was due")
		}
		now.Add(int64((11 * time.Minute).Seconds()))
		if admin(clients["olivia"]) || !admin(clients["mike"]) {
			t.Fatal("role change not picked up by the refresh")
		}
		// A suspended installation's organisation makes no one an admin.
		sim.SetOrgRole("acme", "olivia", "admin")
		db.Installation.Update().SetSuspended(true).ExecX(ctx)
		if admin(login("olivia")) {
			t.Fatal("owner of an organisation whose installation is suspended is an admin")
		}
	})
}
