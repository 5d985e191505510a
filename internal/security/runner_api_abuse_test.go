package security

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server"
	"github.com/chakshu-dev/chakshu/server/runnerapi"
)

const runnerAudience = "https://chakshu.test"

// runnerAPI is the runner API over a simulated GitHub, as one handler: every
// request reaches it from the same address, as it does behind the reverse
// proxy or ingress docs/production.md sets up.
func runnerAPI(t *testing.T, db *store.DB) (http.Handler, *ghsim.Sim) {
	t.Helper()
	s := ghsimtest.New(t)
	appID, pem := s.CreateApp("chakshu")
	apps, err := gh.New(gh.Config{AppID: appID, PrivateKey: pem, BaseURL: s.URL(), GraphQLURL: s.GraphQLURL()})
	if err != nil {
		t.Fatal(err)
	}
	api, err := runnerapi.New(runnerapi.Config{DB: db, Log: slog.New(slog.DiscardHandler), GitHub: apps, Issuer: s.IssuerURL(),
		Audience: runnerAudience, PublicURL: "http://chakshu.test"})
	if err != nil {
		t.Fatal(err)
	}
	return server.Handler(server.Config{Log: slog.New(slog.DiscardHandler), Routes: api.Routes()}), s
}

func postRunner(h http.Handler, path, auth, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.RemoteAddr = "10.0.0.2:443" // the proxy
	r.Header.Set("Content-Type", "application/json")
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestJobFetchJunkToken: a job request whose bearer is junk or unsigned is
// refused as unauthenticated before its body is read or checked (it
// answered 400 for a bad body, telling a stranger the body's shape).
func TestJobFetchJunkToken(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		h, s := runnerAPI(t, db)
		unsigned, err := s.IssueTokenWithClaims(map[string]any{"iss": s.IssuerURL(), "aud": runnerAudience,
			"exp": time.Now().Add(time.Minute).Unix()}, ghsim.TokenOptions{Alg: "none"})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ name, auth, body string }{
			{"junk, empty object", "Bearer junk", `{}`},
			{"junk, no body", "Bearer junk", ``},
			{"junk, valid body", "Bearer junk", `{"run_id": 1}`},
			{"unsigned, empty object", "Bearer " + unsigned, `{}`},
		} {
			t.Run(c.name, func(t *testing.T) {
				if w := postRunner(h, runnerproto.PathJob, c.auth, c.body); w.Code != http.StatusUnauthorized {
					t.Fatalf("%d %s, want 401", w.Code, w.Body)
				}
			})
		}
	})
}

// TestJobFetchNotStarvedBehindProxy: behind a reverse proxy every runner
// comes from one address. A flood of junk job requests must not make a
// runner's genuine token answer 429 (it did once 30 junk requests had
// emptied the address's bucket).
func TestJobFetchNotStarvedBehindProxy(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		h, s := runnerAPI(t, db)
		for i := range 60 {
			postRunner(h, runnerproto.PathJob, fmt.Sprint("Bearer junk-", i), `{"run_id": 1}`)
		}
		now := time.Now()
		tok, err := s.IssueTokenWithClaims(map[string]any{"iss": s.IssuerURL(), "aud": runnerAudience, "sub": "repo:acme/x:ref:refs/heads/main",
			"exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix(), "nbf": now.Add(-5 * time.Second).Unix(),
			"repository_id": "1", "run_id": "1", "event_name": "workflow_dispatch"}, ghsim.TokenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// A genuinely signed token for no run of Chakshu's: refused as not
		// this run's (403), not held back by the flood (429).
		if w := postRunner(h, runnerproto.PathJob, "Bearer "+tok, `{"run_id": 424242}`); w.Code != http.StatusForbidden {
			t.Fatalf("a signed token after the flood: %d %s, want 403", w.Code, w.Body)
		}
	})
}
