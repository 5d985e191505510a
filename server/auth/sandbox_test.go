package auth

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
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

		key := make([]byte, 32)
		rand.Read(key) //nolint:errcheck
		var h http.Handler
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
		defer srv.Close()
		cfg := &config.Config{PublicURL: srv.URL, GitHubURL: sim.URL(), SecretKey: key, Sandbox: true, Admins: []string{config.SandboxUser}}
		a, err := New(Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Config: cfg,
			SandboxDev: SandboxDev{Login: "dev", Token: sim.UserToken}})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		for _, r := range a.Routes() {
			mux.Handle(r.Pattern, r.Handler)
		}
		h = mux

		login := func(as string) (*http.Client, Me, int) {
			jar, _ := cookiejar.New(nil)
			hc := &http.Client{Jar: jar, Timeout: 10 * time.Second}
			me := func() Me {
				resp, err := hc.Get(srv.URL + "/api/me")
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var m Me
				json.NewDecoder(resp.Body).Decode(&m) //nolint:errcheck
				return m
			}
			m := me()
			if !slices.Equal(m.Login.SandboxUsers, []string{config.SandboxUser, "dev"}) {
				t.Fatalf("sandbox users on offer: %v", m.Login.SandboxUsers)
			}
			form := url.Values{"login": {as}, "return_to": {"/runs"}}
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/auth/sandbox", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set(CSRFHeader, m.CSRFToken)
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return hc, me(), resp.StatusCode
		}

		_, m, code := login("dev")
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

		if _, m, code = login(config.SandboxUser); code != http.StatusOK || m.User.Login != config.SandboxUser || !m.User.IsAdmin {
			t.Errorf("admin login: %d %+v", code, m.User)
		}
		// Only the offered logins: not another simulated user, not an admin by name.
		sim.CreateUser("mallory")
		if _, m, code = login("mallory"); code != http.StatusBadRequest || m.Authenticated {
			t.Errorf("login as a user not on offer: %d %+v", code, m)
		}
	})
}
