package gateway

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// upstream is a small faithful Anthropic Messages endpoint: it checks the key
// and version headers and answers with usage.
type upstream struct {
	srv   *httptest.Server
	calls atomic.Int32
	key   atomic.Value // last x-api-key seen
	usage models.Usage
}

func newUpstream(t *testing.T, u models.Usage) *upstream {
	up := &upstream{usage: u}
	up.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up.calls.Add(1)
		up.key.Store(r.Header.Get("x-api-key"))
		if r.URL.Path != "/v1/messages" || r.Header.Get("anthropic-version") == "" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"no"}}`)
			return
		}
		if r.Header.Get("x-api-key") != "sk-ant-upstream-key-123456" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
			return
		}
		var req struct {
			Model string `json:"model"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": req.Model,
			"content":     []map[string]any{{"type": "text", "text": "ok"}},
			"stop_reason": "end_turn", "usage": up.usage,
		})
	}))
	t.Cleanup(up.srv.Close)
	return up
}

// fixture creates a running run with a cost cap.
func fixture(t *testing.T, db *store.DB, maxCost float64) *ent.Run {
	ctx := context.Background()
	inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
	repo := db.Repository.Create().SetGithubID(10).SetOwner("acme").SetName("app").SetFullName("acme/app").SetInstallation(inst).SaveX(ctx)
	rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
	return db.Run.Create().SetRepository(repo).SetReviewer(rv).SetTrigger(run.TriggerComment).
		SetPrNumber(1).SetHeadSha("abc").SetStatus(run.StatusRunning).SetModel("claude-sonnet-5-5").
		SetMaxCostUsd(maxCost).SaveX(ctx)
}

func post(t *testing.T, g *Gateway, rn *ent.Run, body string, final bool) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
	r.Header.Set("x-api-key", "chkr_runner_token_not_forwarded")
	r.Header.Set("anthropic-version", "2023-06-01")
	if final {
		r.Header.Set(HeaderFinal, "1")
	}
	w := httptest.NewRecorder()
	g.Serve(w, r, rn)
	return w
}

func errCode(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var e runnerproto.Error
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
		t.Fatalf("error body %q: %v", w.Body.String(), err)
	}
	return e.Error.Code
}

const msg = `{"model":"claude-sonnet-5-5","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`

func TestGatewayMetersAndCaps(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		// 100k input + 10k output + 1M cache reads on Sonnet 5.5: 0.2 + 0.1 + 0.1 = $0.40 per answer.
		up := newUpstream(t, models.Usage{InputTokens: 100_000, OutputTokens: 10_000, CacheReadInputTokens: 1_000_000, CacheCreationInputTokens: 0})
		g, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), UpstreamURL: up.srv.URL, APIKey: "sk-ant-upstream-key-123456"})
		if err != nil {
			t.Fatal(err)
		}
		rn := fixture(t, db, 0.5)

		w := post(t, g, rn, msg, false)
		if w.Code != 200 {
			t.Fatalf("first request: %d %s", w.Code, w.Body)
		}
		if got := up.key.Load(); got != "sk-ant-upstream-key-123456" {
			t.Fatalf("upstream saw key %q, want Chakshu's", got)
		}
		got := db.Run.GetX(ctx, rn.ID)
		if got.InputTokens != 100_000 || got.OutputTokens != 10_000 || got.CacheReadTokens != 1_000_000 {
			t.Fatalf("tokens %d/%d/%d", got.InputTokens, got.OutputTokens, got.CacheReadTokens)
		}
		if d := got.CostUsd - 0.40; d > 1e-9 || d < -1e-9 {
			t.Fatalf("cost %v, want 0.40", got.CostUsd)
		}
		// Under the cap still: the second goes out and takes the run past it.
		if w := post(t, g, rn, msg, false); w.Code != 200 {
			t.Fatalf("second request: %d %s", w.Code, w.Body)
		}
		// Past the cap: refused without reaching the upstream.
		before := up.calls.Load()
		w = post(t, g, rn, msg, false)
		if w.Code != http.StatusTooManyRequests || errCode(t, w) != CodeCostCap {
			t.Fatalf("past cap: %d %s", w.Code, w.Body)
		}
		if up.calls.Load() != before {
			t.Fatal("a refused request reached the upstream")
		}
		// One final request is allowed, and only one.
		if w := post(t, g, rn, msg, true); w.Code != 200 {
			t.Fatalf("final request: %d %s", w.Code, w.Body)
		}
		if w := post(t, g, rn, msg, true); w.Code != http.StatusTooManyRequests {
			t.Fatalf("second final request: %d %s", w.Code, w.Body)
		}
		got = db.Run.GetX(ctx, rn.ID)
		if d := got.CostUsd - 1.20; d > 1e-9 || d < -1e-9 {
			t.Fatalf("cost %v, want 1.20", got.CostUsd)
		}
		evs := db.RunEvent.Query().AllX(ctx)
		n := 0
		for _, e := range evs {
			if strings.Contains(e.Message, "cost cap") {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("cost cap noted %d times, want once", n)
		}
	})
}

func TestGatewayRefusals(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		up := newUpstream(t, models.Usage{InputTokens: 1, OutputTokens: 1})
		g, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), UpstreamURL: up.srv.URL,
			APIKey: "sk-ant-upstream-key-123456", MaxRequestBytes: 1024})
		if err != nil {
			t.Fatal(err)
		}
		rn := fixture(t, db, 5)
		for _, c := range []struct {
			name, body string
			status     int
			code       string
		}{
			{"streaming, other model", `{"model":"claude-opus-4-1","stream":true,"messages":[]}`, 400, CodeModel},
			{"other model", `{"model":"claude-opus-4-1","messages":[]}`, 400, CodeModel},
			{"not json", `hello`, 400, CodeBadRequest},
			{"too large", `{"model":"claude-sonnet-5-5","messages":[{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}]}`, 413, CodeTooLarge},
		} {
			t.Run(c.name, func(t *testing.T) {
				w := post(t, g, rn, c.body, false)
				if w.Code != c.status || errCode(t, w) != c.code {
					t.Fatalf("got %d %s, want %d %s", w.Code, w.Body, c.status, c.code)
				}
			})
		}
		if up.calls.Load() != 0 {
			t.Fatalf("refused requests reached the upstream %d times", up.calls.Load())
		}
	})
}

func TestGatewayPassesUpstreamErrors(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		up := newUpstream(t, models.Usage{InputTokens: 1})
		g, _ := New(Config{DB: db, UpstreamURL: up.srv.URL, APIKey: "wrong-key"})
		rn := fixture(t, db, 5)
		w := post(t, g, rn, msg, false)
		if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "authentication_error") {
			t.Fatalf("got %d %s", w.Code, w.Body)
		}
		if c := db.Run.GetX(context.Background(), rn.ID).CostUsd; c != 0 {
			t.Fatalf("an error answer was metered: %v", c)
		}
	})
}
