package security

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/connectors"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestHTTPConnectorPathParam: a path parameter of an http endpoint cannot
// hold a path separator, a dot segment, or an encoded or double-encoded
// form of them, whatever pattern the reviewer declared for it: the request
// is refused before anything is sent.
func TestHTTPConnectorPathParam(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		var mu sync.Mutex
		var paths []string
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			paths = append(paths, r.URL.EscapedPath())
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"ok":true}`))
		}))
		defer api.Close()
		inst := db.Installation.Create().SetGithubID(77).SetAccountLogin("acme").SaveX(ctx)
		reg, err := connectors.New(connectors.Config{DB: db.Client, Log: slog.New(slog.DiscardHandler), AllowPlainHTTP: true, AllowLoopback: true})
		if err != nil {
			t.Fatal(err)
		}
		s := connectors.Scope{InstallationID: inst.ID, GitHubInstallationID: 77, Repo: "acme/app", Config: reviewerconfig.Config{
			Connectors: []string{"http"}, HTTP: []reviewerconfig.HTTPEndpoint{{Name: "issue", URL: api.URL + "/api/issue/{key}/view",
				Params: map[string]string{"key": `.+`}}}}}
		for _, v := range []string{"..", ".", "../admin", "a/b", `a\b`, "%2e%2e", "%2E%2E%2Fadmin", "%252e%252e", "%25252e%25252e",
			"%2f", "%5c", "..%2f", ".%2e", "a\x00b", "a\nb"} {
			in, _ := json.Marshal(map[string]string{"key": v})
			resp, err := reg.Call(ctx, s, "http.issue", in)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Error == "" {
				t.Errorf("key %q was sent", v)
			}
		}
		mu.Lock()
		sent := append([]string(nil), paths...)
		mu.Unlock()
		if len(sent) > 0 {
			t.Errorf("requests reached the endpoint: %q", sent)
		}
		// An ordinary value still works.
		resp, err := reg.Call(ctx, s, "http.issue", json.RawMessage(`{"key":"PROJ-12.5_x~y"}`))
		if err != nil || resp.Error != "" {
			t.Fatalf("ordinary key refused: %+v %v", resp, err)
		}
	})
}
