package gateway

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

func newGateway(t *testing.T, db *store.DB, url string, cfg Config) *Gateway {
	t.Helper()
	cfg.DB, cfg.Log, cfg.UpstreamURL, cfg.APIKey = db, slog.New(slog.DiscardHandler), url, "sk-ant-upstream-key-123456"
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// 1-hour cache writes cost 2× input, 5-minute ones 1.25× (pricing page): the
// usage.cache_creation split is metered at each rate.
func TestGatewayMetersOneHourCacheWrites(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		up := newUpstream(t, models.Usage{InputTokens: 1000, OutputTokens: 100, CacheCreationInputTokens: 300_000,
			CacheCreation: &models.CacheCreation{Ephemeral5m: 100_000, Ephemeral1h: 200_000}})
		g := newGateway(t, db, up.srv.URL, Config{})
		rn := fixture(t, db, 10)
		if w := post(t, g, rn, msg, false); w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		// Sonnet 5.5: 1000×2 + 100×10 + 100k×2.50 + 200k×4 per MTok.
		want := (1000*2.0 + 100*10 + 100_000*2.5 + 200_000*4) / 1e6
		got := db.Run.GetX(context.Background(), rn.ID)
		if math.Abs(got.CostUsd-want) > 1e-9 || got.CacheWriteTokens != 300_000 {
			t.Fatalf("cost %v writes %d, want %v and 300000", got.CostUsd, got.CacheWriteTokens, want)
		}
	})
}

func TestGatewayRefusesWhatItCannotPrice(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		up := newUpstream(t, models.Usage{InputTokens: 1, OutputTokens: 1})
		g := newGateway(t, db, up.srv.URL, Config{Betas: []string{"context-management-2025-06-27"}})
		rn := fixture(t, db, 5)
		rn.Model = "" // a run without a fixed model: the catalogue decides
		for _, c := range []struct {
			name, body, beta string
			status           int
			code             string
		}{
			{"unknown model", `{"model":"claude-sonnet-5-5-fast","messages":[]}`, "", 400, CodeModel},
			{"retired model", `{"model":"claude-sonnet-4-5","messages":[]}`, "", 400, CodeModel},
			{"fast mode", `{"model":"claude-sonnet-5-5","speed":"fast","messages":[]}`, "", 400, CodeFeature},
			{"priority tier", `{"model":"claude-sonnet-5-5","service_tier":"auto","messages":[]}`, "", 400, CodeFeature},
			{"server tool", `{"model":"claude-sonnet-5-5","tools":[{"name":"Read","input_schema":{}},{"type":"web_search_20250305","name":"web_search"}],"messages":[]}`, "", 400, CodeFeature},
			{"mcp", `{"model":"claude-sonnet-5-5","mcp_servers":[{"url":"https://x"}],"messages":[]}`, "", 400, CodeFeature},
			{"beta not allowed", `{"model":"claude-sonnet-5-5","messages":[]}`, "context-management-2025-06-27, fast-mode-2026-02-01", 400, CodeBeta},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(c.body))
				if c.beta != "" {
					r.Header.Set("anthropic-beta", c.beta)
				}
				w := httptest.NewRecorder()
				g.Serve(w, r, rn)
				if w.Code != c.status || errCode(t, w) != c.code {
					t.Fatalf("got %d %s, want %d %s", w.Code, w.Body, c.status, c.code)
				}
			})
		}
		if n := up.calls.Load(); n != 0 {
			t.Fatalf("refused requests reached the upstream %d times", n)
		}
		// What is priced or allowed goes through: custom tools, standard_only, an allowed beta.
		r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(
			`{"model":"claude-sonnet-5-5","service_tier":"standard_only","tools":[{"type":"custom","name":"Read","input_schema":{}}],"messages":[]}`))
		r.Header.Set("anthropic-beta", "context-management-2025-06-27")
		w := httptest.NewRecorder()
		g.Serve(w, r, rn)
		if w.Code != 200 || up.calls.Load() != 1 {
			t.Fatalf("allowed request: %d %s", w.Code, w.Body)
		}
	})
}

// The Messages API accepts requests up to 32 MB (REALITY.md); the gateway
// passes exactly that and refuses one byte more.
func TestGatewayRequestLimitIsAnthropics(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		up := newUpstream(t, models.Usage{InputTokens: 1})
		g := newGateway(t, db, up.srv.URL, Config{})
		rn := fixture(t, db, 5)
		body := func(n int) string {
			head := `{"model":"claude-sonnet-5-5","messages":[{"role":"user","content":"`
			tail := `"}]}`
			return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
		}
		if w := post(t, g, rn, body(32_000_000), false); w.Code != 200 {
			t.Fatalf("32 MB: %d %s", w.Code, w.Body)
		}
		if w := post(t, g, rn, body(32_000_001), false); w.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("32 MB + 1: %d", w.Code)
		}
	})
}

// An overloaded upstream's retry advice reaches the runner unchanged.
func TestGatewayForwardsRetryAdvice(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("retry-after", "3")
			w.Header().Set("retry-after-ms", "2500")
			w.Header().Set("x-should-retry", "true")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(529)
			io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
		}))
		defer srv.Close()
		g := newGateway(t, db, srv.URL, Config{})
		rn := fixture(t, db, 5)
		w := post(t, g, rn, msg, false)
		if w.Code != 529 || w.Header().Get("retry-after") != "3" || w.Header().Get("retry-after-ms") != "2500" || w.Header().Get("x-should-retry") != "true" {
			t.Fatalf("got %d %v", w.Code, w.Header())
		}
		if !strings.Contains(w.Body.String(), "overloaded_error") {
			t.Fatalf("body %s", w.Body)
		}
	})
}

// The operator's catalogue is read again when it changes: a model added to
// it is priced at once, without a new gateway.
func TestGatewayUsesTheOperatorCatalogue(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		path := filepath.Join(t.TempDir(), "models.json")
		os.WriteFile(path, []byte(`{"models":[]}`), 0o600)
		os.Chtimes(path, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
		src, err := models.NewSource(path)
		if err != nil {
			t.Fatal(err)
		}
		up := newUpstream(t, models.Usage{InputTokens: 1_000_000})
		g := newGateway(t, db, up.srv.URL, Config{Models: src})
		rn := fixture(t, db, 50)
		rn.Model = ""
		body := `{"model":"acme-claude-tuned","messages":[]}`
		w := post(t, g, rn, body, false)
		var e struct {
			Error struct{ Message string } `json:"error"`
		}
		json.Unmarshal(w.Body.Bytes(), &e)
		if w.Code != 400 || !strings.Contains(e.Error.Message, path) || !strings.Contains(e.Error.Message, models.Setting) {
			t.Fatalf("unknown model: %d %s", w.Code, w.Body)
		}
		os.WriteFile(path, []byte(`{"models":[{"id":"acme-claude-tuned","provider":"anthropic","price":{"input":7,"output":1},"lifecycle":{"status":"active"}}]}`), 0o600)
		if w := post(t, g, rn, body, false); w.Code != 200 {
			t.Fatalf("added model: %d %s", w.Code, w.Body)
		}
		if c := db.Run.GetX(context.Background(), rn.ID).CostUsd; math.Abs(c-7) > 1e-9 {
			t.Fatalf("cost %v, want 7", c)
		}
	})
}
