package security

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gateway"
	"github.com/chakshu-dev/chakshu/internal/spend"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// Sonnet 5.5 (built-in catalogue): $2 input, $10 output per million tokens.
// Each answer of capUpstream: 100k input + 32k output = $0.20 + $0.32.
const (
	capAnswerCost = 0.52
	capMaxTokens  = 32_000
)

// capUpstream is an Anthropic Messages endpoint that holds each answer until
// release is closed (or the caller goes away), counting the requests it
// holds at once.
type capUpstream struct {
	srv              *httptest.Server
	release          chan struct{}
	calls, now, peak atomic.Int32
}

func newCapUpstream(t *testing.T) *capUpstream {
	up := &capUpstream{release: make(chan struct{})}
	up.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up.calls.Add(1)
		n := up.now.Add(1)
		defer up.now.Add(-1)
		for p := up.peak.Load(); n > p && !up.peak.CompareAndSwap(p, n); p = up.peak.Load() {
		}
		io.Copy(io.Discard, r.Body)
		select {
		case <-up.release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
			"content": []map[string]any{{"type": "text", "text": "ok"}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 100_000, "output_tokens": capMaxTokens},
		})
	}))
	t.Cleanup(up.srv.Close)
	return up
}

func capRun(t *testing.T, db *store.DB, maxCost float64) (*ent.Installation, *ent.Run) {
	ctx := context.Background()
	inst := db.Installation.Create().SetGithubID(1).SetAccountLogin("acme").SaveX(ctx)
	repo := db.Repository.Create().SetGithubID(10).SetOwner("acme").SetName("app").SetFullName("acme/app").SetInstallation(inst).SaveX(ctx)
	rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
	return inst, db.Run.Create().SetRepository(repo).SetReviewer(rv).SetTrigger(run.TriggerComment).
		SetPrNumber(1).SetHeadSha("abc").SetStatus(run.StatusRunning).SetModel("claude-sonnet-5-5").
		SetMaxCostUsd(maxCost).SaveX(ctx)
}

func capGateway(t *testing.T, db *store.DB, url string, mut func(*gateway.Config)) *gateway.Gateway {
	cfg := gateway.Config{DB: db, Log: slog.New(slog.DiscardHandler), UpstreamURL: url, APIKey: "sk-ant-upstream-key-123456"}
	if mut != nil {
		mut(&cfg)
	}
	g, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func capBody(maxTokens int, stream bool) string {
	return fmt.Sprintf(`{"model":"claude-sonnet-5-5","max_tokens":%d,"stream":%t,"messages":[{"role":"user","content":"review this"}]}`, maxTokens, stream)
}

func serveModel(ctx context.Context, g *gateway.Gateway, rn *ent.Run, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v1/messages", strings.NewReader(body))
	r.Header.Set("anthropic-version", "2023-06-01")
	w := httptest.NewRecorder()
	g.Serve(w, r, rn)
	return w
}

// TestGatewayCostCapIsHard: 30 requests sent at once on a run capped at
// $0.10 cannot together meter more than the cap and one request's worst
// case (before the fix all 30 went out and $15.60 was metered), the run's
// cost after they end is exactly what was metered, and while they are in
// flight the installation's spend (what its budgets read) already counts
// them.
func TestGatewayCostCapIsHard(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		up := newCapUpstream(t)
		g := capGateway(t, db, up.srv.URL, nil)
		inst, rn := capRun(t, db, 0.10)

		var wg sync.WaitGroup
		var ok, capped atomic.Int32
		for range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch w := serveModel(ctx, g, rn, capBody(capMaxTokens, false)); w.Code {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusTooManyRequests:
					capped.Add(1)
				default:
					t.Errorf("answer %d %s", w.Code, w.Body)
				}
			}()
		}
		// Wait until every request has either reached the upstream or been refused.
		deadline := time.Now().Add(10 * time.Second)
		for up.calls.Load()+capped.Load() < 30 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		spend, err := spend.Spent(ctx, db, spend.Scope{InstallationID: inst.ID}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if spend.Today < 0.10 {
			t.Errorf("installation spend with requests in flight is $%.4f: budgets do not see what is reserved", spend.Today)
		}
		close(up.release)
		wg.Wait()

		got := db.Run.GetX(ctx, rn.ID).CostUsd
		if limit := 0.10 + capAnswerCost; got > limit+1e-9 {
			t.Fatalf("%d of 30 requests admitted, $%.2f metered on a $0.10 cap (at most $%.2f expected)", ok.Load(), got, limit)
		}
		if want := float64(ok.Load()) * capAnswerCost; math.Abs(got-want) > 1e-9 {
			t.Fatalf("run cost $%.4f after settling, want %d × $%.2f", got, ok.Load(), capAnswerCost)
		}
	})
}

// TestGatewayInFlightPerRun: a run cannot have more model requests in
// flight than the gateway allows, even far under its cap.
func TestGatewayInFlightPerRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		up := newCapUpstream(t)
		g := capGateway(t, db, up.srv.URL, func(c *gateway.Config) { c.MaxInFlight = 3 })
		_, rn := capRun(t, db, 1000)
		var wg sync.WaitGroup
		var refused atomic.Int32
		for range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if w := serveModel(ctx, g, rn, capBody(10, false)); w.Code == http.StatusTooManyRequests {
					if w.Header().Get("x-should-retry") != "true" {
						t.Errorf("in-flight refusal without retry advice: %v", w.Header())
					}
					refused.Add(1)
				}
			}()
		}
		deadline := time.Now().Add(10 * time.Second)
		for up.calls.Load()+refused.Load() < 30 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		close(up.release)
		wg.Wait()
		if p := up.peak.Load(); p > 3 {
			t.Fatalf("%d requests of one run in flight at once, limit 3", p)
		}
	})
}

// TestGatewayMetersCutStream: a stream that breaks off after 150 text
// deltas, before its message_delta, is metered for what was relayed, not
// message_start's single output token.
func TestGatewayMetersCutStream(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fl := w.(http.Flusher)
			fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-5-5\",\"content\":[],\"usage\":{\"input_tokens\":1000,\"output_tokens\":1}}}\n\n")
			fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
			for i := range 150 {
				fmt.Fprintf(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"chunk %03d of the answer \"}}\n\n", i)
				fl.Flush()
			}
			// The connection drops here: no message_delta, no message_stop.
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}))
		t.Cleanup(srv.Close)
		g := capGateway(t, db, srv.URL, nil)
		_, rn := capRun(t, db, 100)
		serveModel(ctx, g, rn, capBody(4096, true))
		got := db.Run.GetX(ctx, rn.ID)
		if got.OutputTokens < 150 {
			t.Fatalf("a stream cut after 150 deltas metered %d output tokens", got.OutputTokens)
		}
		if got.InputTokens != 1000 {
			t.Fatalf("input tokens %d, want message_start's 1000", got.InputTokens)
		}
	})
}

// TestGatewayMetersCancelledRequest: a non-streaming request the runner
// gives up on after the upstream took it is metered at its worst case (the
// upstream may well finish and bill it), not at nothing.
func TestGatewayMetersCancelledRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		up := newCapUpstream(t)
		g := capGateway(t, db, up.srv.URL, nil)
		_, rn := capRun(t, db, 100)
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for up.calls.Load() == 0 {
				time.Sleep(2 * time.Millisecond)
			}
			cancel()
		}()
		serveModel(ctx, g, rn, capBody(capMaxTokens, false))
		got := db.Run.GetX(context.Background(), rn.ID).CostUsd
		if min := float64(capMaxTokens) * 10 / 1e6; got < min {
			t.Fatalf("a cancelled request metered $%.4f, want at least its max_tokens' $%.2f", got, min)
		}
	})
}
