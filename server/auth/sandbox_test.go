package auth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/user"
	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// sandboxServer serves a's routes over HTTP for cfg (PublicURL is set to the server's URL).
func sandboxServer(t *testing.T, db *store.DB, cfg *config.Config, dev SandboxDev) *httptest.Server {
	t.Helper()
	key := make([]byte, 32)
	rand.Read(key) //nolint:errcheck
	cfg.SecretKey = key
	return serveAuth(t, Config{DB: db, Settings: SettingsFrom(cfg.SharedPart, cfg.WebPart), SandboxDev: dev})
}

// browser is a cookie-keeping client of a sandboxServer.
type browser struct {
	t   *testing.T
	url string
	hc  *http.Client
}

func newBrowser(t *testing.T, url string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, url: url, hc: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
}

func (b *browser) me() Me {
	b.t.Helper()
	resp, err := b.hc.Get(b.url + "/api/me")
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m Me
	json.NewDecoder(resp.Body).Decode(&m) //nolint:errcheck
	return m
}

// sandboxLogin posts the sandbox login form (with the CSRF token when csrf is set).
func (b *browser) sandboxLogin(form url.Values, csrf string) int {
	b.t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, b.url+"/auth/sandbox", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if csrf != "" {
		req.Header.Set(CSRFHeader, csrf)
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSandboxLogin: with no OAuth client in sandbox mode, /auth/login offers a
// one-click login as the sandbox admin (CSRF-protected); outside sandbox mode
// the route does not exist.
func TestSandboxLogin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for _, sandbox := range []bool{true, false} {
			cfg := &config.Config{SharedPart: config.SharedPart{GitHubURL: "https://api.github.com/", Sandbox: sandbox}}
			if sandbox {
				cfg.Admins = []string{config.SandboxUser}
			}
			b := newBrowser(t, sandboxServer(t, db, cfg, SandboxDev{}).URL)
			m := b.me()
			if m.Authenticated || m.Login.Sandbox != sandbox || m.Login.GitHub {
				t.Fatalf("sandbox=%v: before login: %+v", sandbox, m)
			}
			if sandbox && !slices.Equal(m.Login.SandboxUsers, []string{config.SandboxUser}) {
				t.Errorf("sandbox users on offer without a simulated user: %v", m.Login.SandboxUsers)
			}
			if code := b.sandboxLogin(url.Values{}, ""); code != http.StatusForbidden {
				t.Errorf("sandbox=%v: login without CSRF token: %d", sandbox, code)
			}
			code := b.sandboxLogin(url.Values{"return_to": {"/status"}}, m.CSRFToken)
			m = b.me()
			if sandbox && (code != http.StatusOK || !m.Authenticated || m.User.Login != config.SandboxUser || !m.User.IsAdmin) {
				t.Errorf("sandbox login: %d %+v", code, m)
			}
			if !sandbox && (code != http.StatusNotFound || m.Authenticated) {
				t.Errorf("sandbox login outside sandbox mode: %d %+v", code, m)
			}
		}
	})
}

// TestSandboxDevLogin: the sandbox offers its admin and a non-admin simulated
// user; signing in as the non-admin reads their account and readable
// repositories from the simulated GitHub (one of two private repositories
// here), so they are not an admin and see only what GitHub lets them read.
func TestSandboxDevLogin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		sim := ghsim.New(ghsim.Options{})
		defer sim.Close()
		sim.CreateOrg("acme")
		sim.CreateUser("dev")
		sim.CreateRepo("acme", "open", map[string]string{"README.md": "x"})
		sim.CreateRepo("acme", "secret", map[string]string{"README.md": "y"})
		sim.SetPermission("acme/open", "dev", "read")
		openID, secretID := sim.RepoID("acme/open"), sim.RepoID("acme/secret")
		cfg := &config.Config{
			SharedPart: config.SharedPart{GitHubURL: sim.URL(), Sandbox: true},
			WebPart:    config.WebPart{Admins: []string{config.SandboxUser}},
		}
		srv := sandboxServer(t, db, cfg, SandboxDev{Login: "dev", Token: sim.UserToken})

		login := func(as string) (Me, int) {
			b := newBrowser(t, srv.URL)
			m := b.me()
			if !slices.Equal(m.Login.SandboxUsers, []string{config.SandboxUser, "dev"}) {
				t.Fatalf("sandbox users on offer: %v", m.Login.SandboxUsers)
			}
			code := b.sandboxLogin(url.Values{"login": {as}, "return_to": {"/runs"}}, m.CSRFToken)
			return b.me(), code
		}

		m, code := login("dev")
		if code != http.StatusOK || !m.Authenticated || m.User.Login != "dev" || m.User.IsAdmin || !m.User.CanWrite {
			t.Fatalf("dev login: %d %+v", code, m.User)
		}
		u, err := db.User.Query().Where(user.Login("dev")).Only(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(u.RepoAccess, openID) || slices.Contains(u.RepoAccess, secretID) {
			t.Errorf("dev reads %v; want %d (acme/open) and not %d (acme/secret)", u.RepoAccess, openID, secretID)
		}
		if u.GithubID != sim.UserID("dev") || u.IsAdmin {
			t.Errorf("dev user row: github id %d (sim %d), admin %v", u.GithubID, sim.UserID("dev"), u.IsAdmin)
		}

		if m, code = login(config.SandboxUser); code != http.StatusOK || m.User.Login != config.SandboxUser || !m.User.IsAdmin {
			t.Errorf("admin login: %d %+v", code, m.User)
		}
		// Only the offered logins: not another simulated user.
		sim.CreateUser("mallory")
		if m, code = login("mallory"); code != http.StatusBadRequest || m.Authenticated {
			t.Errorf("login as a user not on offer: %d %+v", code, m)
		}
	})
}
