package security

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestHTTPConnectorQueryParam: a placeholder in an http endpoint's query
// string is one query value whatever the agent puts in it. Escaped for a
// path, & = + ; stayed as they were, so a prompt-injected agent could add
// parameters (limit=100000, a callback, an override of a fixed one) on the
// declared host with the stored credential attached.
func TestHTTPConnectorQueryParam(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var mu sync.Mutex
		var got url.Values
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = r.URL.Query()
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"ok":true}`))
		}))
		defer api.Close()
		inst := db.Installation.Create().SetGithubID(78).SetAccountLogin("acme").SaveX(ctx)
		reg, err := connectors.New(connectors.Config{DB: db.Client, Log: slog.New(slog.DiscardHandler), AllowPlainHTTP: true, AllowLoopback: true})
		if err != nil {
			t.Fatal(err)
		}
		s := connectors.Scope{InstallationID: inst.ID, GitHubInstallationID: 78, Repo: "acme/app", Config: reviewerconfig.Config{
			Connectors: []string{"http"}, HTTP: []reviewerconfig.HTTPEndpoint{{Name: "search", URL: api.URL + "/api/search?q={q}&limit=5",
				Params: map[string]string{"q": `.+`}}}}}
		for _, c := range []struct{ name, q string }{
			{"ampersand", "x&limit=100000&callback=evil"},
			{"equals", "limit=100000"},
			{"plus", "a+b"},
			{"semicolon", "x;limit=100000"},
			{"hash", "x#limit=1"},
			{"at and colon", "user@evil:1"},
			{"dollar", "$where"},
		} {
			t.Run(c.name, func(t *testing.T) {
				in, _ := json.Marshal(map[string]string{"q": c.q})
				resp, err := reg.Call(ctx, s, "http.search", in)
				if err != nil || resp.Error != "" {
					t.Fatalf("call: %+v %v", resp, err)
				}
				mu.Lock()
				defer mu.Unlock()
				want := url.Values{"q": {c.q}, "limit": {"5"}}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("the endpoint saw other parameters (-want +got):\n%s", d)
				}
			})
		}
	})
}
