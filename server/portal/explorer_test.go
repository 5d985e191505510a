package portal

import (
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
)

const explorerHTML = `<!doctype html><html><head><script type="module" src="/assets/explorer-1a2b.js"></script></head><body><div id="explorer"></div></body></html>`

// TestExplorer: a browser's GET /graphql gets the explorer page under the
// portal's CSP; POSTs, WebSocket upgrades and JSON clients reach the API.
func TestExplorer(t *testing.T) {
	fsys := build()
	fsys[explorerPage] = &fstest.MapFile{Data: []byte(explorerHTML)}
	h := newHandler(t, fsys)
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"api":true}`)) //nolint:errcheck
	})
	ex := h.Explorer(api)
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	cases := []struct {
		name, method string
		hdr          map[string]string
		explorer     bool
	}{
		{"browser navigation", "GET", map[string]string{"Accept": browser}, true},
		{"text/html alone", "GET", map[string]string{"Accept": "text/html"}, true},
		{"JSON client", "GET", map[string]string{"Accept": "application/json"}, false},
		{"no Accept", "GET", nil, false},
		{"html refused with q=0", "GET", map[string]string{"Accept": "text/html;q=0, application/json"}, false},
		{"graphql-ws upgrade", "GET", map[string]string{"Accept": browser, "Upgrade": "websocket", "Connection": "Upgrade"}, false},
		{"POST from a browser", "POST", map[string]string{"Accept": browser}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := do(ex, c.method, "/graphql", c.hdr)
			body := rec.Body.String()
			if c.explorer {
				if rec.Code != 200 || !strings.Contains(body, `id="explorer"`) {
					t.Fatalf("want the explorer page, got %d %q", rec.Code, body)
				}
				csp := rec.Header().Get("Content-Security-Policy")
				if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
					t.Errorf("CSP %q: want the portal's (no inline script)", csp)
				}
				if rec.Header().Get("Cache-Control") != cacheRevalidate || rec.Header().Get("X-Frame-Options") != "DENY" {
					t.Errorf("headers %v", rec.Header())
				}
				return
			}
			if body != `{"api":true}` {
				t.Errorf("want the API, got %d %q", rec.Code, body)
			}
		})
	}
	// A build without the explorer page says so instead of a blank page.
	rec := do(newHandler(t, build()).Explorer(api), "GET", "/graphql", map[string]string{"Accept": browser})
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "not built") {
		t.Errorf("no explorer in the build: %d %q", rec.Code, rec.Body.String())
	}
}
