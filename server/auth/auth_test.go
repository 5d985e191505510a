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
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/config"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

func TestSafeReturn(t *testing.T) {
	cases := map[string]string{
		"":                     "/",
		"/runs?x=1":            "/runs?x=1",
		"//evil.example/":      "/",
		"/\\evil.example":      "/",
		"https://evil.example": "/",
		"runs":                 "/",
		"/a\r\nSet-Cookie:x":   "/",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := safeReturn(in); got != want {
				t.Errorf("safeReturn(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestWebURL(t *testing.T) {
	cases := map[string]string{
		"https://api.github.com/":     "https://github.com",
		"https://ghe.example/api/v3/": "https://ghe.example",
		"http://127.0.0.1:9/api/v3/":  "http://127.0.0.1:9",
		"http://127.0.0.1:9/":         "http://127.0.0.1:9",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := WebURL(in); got != want {
				t.Errorf("WebURL(%q) = %q, want %q", in, got, want)
			}
		})
	}
}

func TestTokenFormat(t *testing.T) {
	a, b := NewToken(), NewToken()
	if a == b || !strings.HasPrefix(a, TokenPrefix) || len(a) != len(TokenPrefix)+43 {
		t.Fatalf("tokens %q %q", a, b)
	}
	if HashToken(a) == HashToken(b) || len(HashToken(a)) != 64 || strings.Contains(HashToken(a), a) {
		t.Fatal("hash")
	}
	if p := TokenDisplayPrefix(a); !strings.HasPrefix(a, p) || len(p) >= len(a)/2 {
		t.Fatalf("prefix %q", p)
	}
}

// TestSandboxLogin: with no OAuth client in sandbox mode, /auth/login offers a
// one-click login as the sandbox admin (CSRF-protected); outside sandbox mode
// the route does not exist.
func TestSandboxLogin(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for _, sandbox := range []bool{true, false} {
			key := make([]byte, 32)
			rand.Read(key) //nolint:errcheck
			var h http.Handler
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
			cfg := &config.Config{PublicURL: srv.URL, GitHubURL: "https://api.github.com/", SecretKey: key, Sandbox: sandbox}
			if sandbox {
				cfg.Admins = []string{config.SandboxUser}
			}
			a, err := New(Config{DB: db, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			mux := http.NewServeMux()
			for _, r := range a.Routes() {
				mux.Handle(r.Pattern, r.Handler)
			}
			h = mux
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
			if m.Authenticated || m.Login.Sandbox != sandbox || m.Login.GitHub {
				t.Fatalf("sandbox=%v: before login: %+v", sandbox, m)
			}
			// Without the CSRF token: refused.
			resp, _ := hc.PostForm(srv.URL+"/auth/sandbox", url.Values{})
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("sandbox=%v: login without CSRF token: %d", sandbox, resp.StatusCode)
			}
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/auth/sandbox", strings.NewReader("return_to=/status"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set(CSRFHeader, m.CSRFToken)
			resp, err = hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			m = me()
			if sandbox && (resp.StatusCode != http.StatusOK || !m.Authenticated || m.User.Login != config.SandboxUser || !m.User.IsAdmin) {
				t.Errorf("sandbox login: %d %+v", resp.StatusCode, m)
			}
			if !sandbox && (resp.StatusCode != http.StatusNotFound || m.Authenticated) {
				t.Errorf("sandbox login outside sandbox mode: %d %+v", resp.StatusCode, m)
			}
			srv.Close()
		}
	})
}
