package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"testing"
)

// session is a browser-like client signed in to the portal.
type session struct {
	c    *chakshu
	http *http.Client
	csrf string
}

// loginSandbox signs in as the sandbox admin the way the portal does:
// GET /api/me for the CSRF token, then POST /auth/sandbox.
func (c *chakshu) loginSandbox(t testing.TB) *session {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	s := &session{c: c, http: &http.Client{Jar: jar}}
	s.refreshCSRF(t)
	req, _ := http.NewRequest("POST", c.URL+"/auth/sandbox", nil)
	req.Header.Set("X-CSRF-Token", s.csrf)
	req.Header.Set("Origin", c.URL)
	resp, err := s.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("sandbox login: %d %s", resp.StatusCode, b)
	}
	s.refreshCSRF(t)
	return s
}

func (s *session) refreshCSRF(t testing.TB) {
	t.Helper()
	resp, err := s.http.Get(s.c.URL + "/api/me")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var me struct {
		CSRFToken string `json:"csrfToken"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&me); err != nil {
		t.Fatalf("/api/me: %v", err)
	}
	s.csrf = me.CSRFToken
	if s.csrf == "" {
		s.csrf = resp.Header.Get("X-CSRF-Token")
	}
}

// graphql runs a query or mutation with the session cookie and CSRF token.
func (s *session) graphql(t testing.TB, query string, vars map[string]any, out any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", s.c.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", s.csrf)
	req.Header.Set("Origin", s.c.URL)
	resp, err := s.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	decodeGraphQL(t, resp.StatusCode, b, out)
}

func decodeGraphQL(t testing.TB, status int, b []byte, out any) {
	t.Helper()
	var env struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(b, &env); err != nil || len(env.Errors) > 0 {
		t.Fatalf("graphql %d: %s", status, b)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		t.Fatalf("graphql data: %v: %s", err, env.Data)
	}
}

// reviewersSynced reports whether the portal lists the sandbox's three
// reviewers with the commit they were synced from.
func (c *chakshu) reviewersSynced(t testing.TB) bool {
	t.Helper()
	s := c.loginSandbox(t)
	var out struct {
		Reviewers struct {
			Edges []struct {
				Node struct {
					Name         string `json:"name"`
					SyncedCommit string `json:"syncedCommit"`
				} `json:"node"`
			} `json:"edges"`
		} `json:"reviewers"`
	}
	s.graphql(t, `{ reviewers(first: 10) { edges { node { name syncedCommit } } } }`, nil, &out)
	n := 0
	for _, e := range out.Reviewers.Edges {
		if e.Node.SyncedCommit != "" {
			n++
		}
	}
	return n >= 3
}
