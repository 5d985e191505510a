package auth

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// rotationServer serves the auth routes with the given current and previous
// secret keys (sandbox login, so a session needs no GitHub).
func rotationServer(t *testing.T, db *store.DB, key []byte, previous ...[]byte) *httptest.Server {
	t.Helper()
	cfg := &config.Config{
		SharedPart: config.SharedPart{GitHubURL: "https://api.github.com/", Sandbox: true, SecretKey: key, SecretKeyPrevious: previous},
		WebPart:    config.WebPart{Admins: []string{config.SandboxUser}},
	}
	return serveAuth(t, Config{DB: db, Settings: SettingsFrom(cfg.SharedPart, cfg.WebPart)})
}

// serveAuth serves the routes of the Auth c builds on a test server, once
// c.Settings.PublicURL is the server's URL (a quiet logger when c.Log is nil);
// the server closes when the test ends.
func serveAuth(t *testing.T, c Config) *httptest.Server {
	t.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	c.Settings.PublicURL = srv.URL
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	a, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	for _, r := range a.Routes() {
		mux.Handle(r.Pattern, r.Handler)
	}
	h = mux
	return srv
}

// A session and the CSRF cookie made under the old key survive the switch to
// a new key while the old one is CHAKSHU_SECRET_KEY_PREVIOUS: the session
// reads, a CSRF-protected POST with the token the page holds passes, and
// both cookies come back re-issued under the new key, so they outlive the
// previous key's removal. Without the previous key the same cookies are
// anonymous and the POST is refused.
func TestSessionsSurviveKeyRotation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		oldKey, newKey := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
		before := rotationServer(t, db, oldKey)
		b := newBrowser(t, before.URL)
		m := b.me()
		if code := b.sandboxLogin(url.Values{}, m.CSRFToken); code != http.StatusOK || !b.me().Authenticated {
			t.Fatalf("login under the old key: %d", code)
		}
		token := b.me().CSRFToken
		u, _ := url.Parse(before.URL)
		oldCookies := b.hc.Jar.Cookies(u)

		// The new key alone: the old cookies are worthless.
		alone := newBrowser(t, rotationServer(t, db, newKey).URL)
		alone.hc.Jar.SetCookies(u, oldCookies)
		if alone.me().Authenticated {
			t.Fatal("a session of the old key read under the new key alone")
		}
		if code := alone.sandboxLogin(url.Values{}, token); code != http.StatusForbidden {
			t.Fatalf("old CSRF cookie under the new key alone: %d, want 403", code)
		}

		// The rotation window: new key, old key previous (one cookie jar per
		// browser: cookies are per host, not per port).
		during := rotationServer(t, db, newKey, oldKey)
		poster := newBrowser(t, during.URL)
		poster.hc.Jar.SetCookies(u, oldCookies)
		if code := poster.sandboxLogin(url.Values{}, token); code != http.StatusOK {
			t.Fatalf("CSRF token of the old key during the rotation: %d, want 200", code)
		}
		b.url = during.URL
		if m := b.me(); !m.Authenticated || m.User.Login != config.SandboxUser {
			t.Fatalf("session of the old key during the rotation: %+v", m)
		}
		for _, c := range b.hc.Jar.Cookies(u) {
			for _, o := range oldCookies {
				if c.Name == o.Name && c.Value == o.Value {
					t.Fatalf("cookie %s was not re-issued under the new key", c.Name)
				}
			}
		}

		// After: the new key alone reads the re-issued cookies, and the
		// token the page holds still passes.
		b.url = rotationServer(t, db, newKey).URL
		if m := b.me(); !m.Authenticated {
			t.Fatalf("re-issued session under the new key alone: %+v", m)
		}
		if code := b.sandboxLogin(url.Values{}, token); code != http.StatusOK {
			t.Fatalf("re-issued CSRF cookie under the new key alone: %d", code)
		}
	})
}
