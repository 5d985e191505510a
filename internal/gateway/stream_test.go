package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

const streamMsg = `{"model":"claude-sonnet-5-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`

// sse is one server-sent event as the client received it.
type sse struct {
	event string
	data  map[string]any
}

// streamClient posts through the gateway (served over real HTTP, so flushes
// reach the client) and hands back the events one by one.
type streamClient struct {
	resp *http.Response
	br   *bufio.Reader
}

func openStream(t *testing.T, g *Gateway, rn *ent.Run, body string, final bool) *streamClient {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { g.Serve(w, r, rn) }))
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
	req.Header.Set("anthropic-version", "2023-06-01")
	if final {
		req.Header.Set(HeaderFinal, "1")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &streamClient{resp: resp, br: bufio.NewReader(resp.Body)}
}

// next reads one event; ok is false at the end of the stream. Safe to call
// from a goroutine (it does not stop the test).
func (c *streamClient) next(t *testing.T) (ev sse, ok bool) {
	t.Helper()
	for {
		line, err := c.br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			ev.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.data); err != nil {
				t.Errorf("event data %q: %v", line, err) // not Fatal: called from a goroutine too
				return ev, false
			}
		case line == "" && ev.event != "":
			return ev, true
		}
		if err != nil {
			return ev, false
		}
	}
}

// usageOf reads the usage the client saw: message_start's, updated by message_delta's.
func usageOf(evs []sse) models.Usage {
	var u streamUsage
	for _, ev := range evs {
		b, _ := json.Marshal(ev.data)
		u.event(b)
	}
	return u.Usage
}

// TestGatewayStreams: a streaming request is relayed event by event from the
// scripted model (which holds its message_stop until the test has seen the
// events before it — a buffering gateway would hang here), metered from the
// stream's usage and priced like a non-streaming answer, and the cost cap
// applies to streams the same way.
func TestGatewayStreams(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		hold := make(chan struct{})
		model := httptest.NewServer(scriptedmodel.New(scriptedmodel.Config{APIKey: "sk-ant-upstream-key-123456", ExtraInputTokens: 200_000, HoldStream: hold}))
		defer model.Close()
		g, err := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), UpstreamURL: model.URL, APIKey: "sk-ant-upstream-key-123456"})
		if err != nil {
			t.Fatal(err)
		}
		rn := fixture(t, db, 0.7) // each answer: ~200k input tokens on Sonnet 5.5 ≈ $0.40

		c := openStream(t, g, rn, streamMsg, false)
		if c.resp.StatusCode != 200 || !strings.HasPrefix(c.resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("stream: %d %s", c.resp.StatusCode, c.resp.Header.Get("Content-Type"))
		}
		var evs []sse
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				ev, ok := c.next(t)
				if !ok {
					return
				}
				evs = append(evs, ev)
				if ev.event == "message_delta" {
					close(hold) // everything before message_stop arrived while the model still held the stream
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("the gateway did not pass the events on before the upstream finished")
		}
		var names []string
		text := ""
		for _, ev := range evs {
			names = append(names, ev.event)
			if d, ok := ev.data["delta"].(map[string]any); ok && d["type"] == "text_delta" {
				text += d["text"].(string)
			}
		}
		if names[0] != "message_start" || names[len(names)-1] != "message_stop" || !strings.Contains(strings.Join(names, ","), "content_block_delta") {
			t.Fatalf("events %v", names)
		}
		if text != "I have no way to submit a result." {
			t.Fatalf("relayed text %q", text)
		}
		u := usageOf(evs)
		if u.InputTokens < 200_000 || u.OutputTokens < 10 {
			t.Fatalf("usage seen by the client %+v", u)
		}
		got := db.Run.GetX(ctx, rn.ID)
		price, _ := models.Builtin().Lookup("claude-sonnet-5-5")
		if got.InputTokens != u.InputTokens || got.OutputTokens != u.OutputTokens || got.CostUsd != price.Cost(u) {
			t.Fatalf("metered %d/%d $%v, want %+v $%v", got.InputTokens, got.OutputTokens, got.CostUsd, u, price.Cost(u))
		}

		// Under the cap still: the second stream takes the run past it.
		c = openStream(t, g, rn, streamMsg, false)
		for {
			if _, ok := c.next(t); !ok {
				break
			}
		}
		if cost := db.Run.GetX(ctx, rn.ID).CostUsd; cost < 0.7 {
			t.Fatalf("cost after two streams %v", cost)
		}
		// Past the cap: a stream is refused like any request; one final one goes out.
		if w := post(t, g, rn, streamMsg, false); w.Code != http.StatusTooManyRequests || errCode(t, w) != CodeCostCap {
			t.Fatalf("stream past the cap: %d %s", w.Code, w.Body)
		}
		c = openStream(t, g, rn, streamMsg, true)
		n := 0
		for {
			if _, ok := c.next(t); !ok {
				break
			}
			n++
		}
		if c.resp.StatusCode != 200 || n < 5 {
			t.Fatalf("final stream: %d, %d events", c.resp.StatusCode, n)
		}
		if w := post(t, g, rn, streamMsg, true); w.Code != http.StatusTooManyRequests {
			t.Fatalf("second final stream: %d %s", w.Code, w.Body)
		}
		if in := db.Run.GetX(ctx, rn.ID).InputTokens; in != 3*u.InputTokens {
			t.Fatalf("input tokens after three streams %d, want %d", in, 3*u.InputTokens)
		}
	})
}

// TestGatewayStreamMeteredWhenClientLeaves: a client that hangs up mid-stream
// is still charged for what the upstream answered.
func TestGatewayStreamMeteredWhenClientLeaves(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		hold := make(chan struct{})
		model := httptest.NewServer(scriptedmodel.New(scriptedmodel.Config{HoldStream: hold}))
		defer model.Close()
		g, _ := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), UpstreamURL: model.URL})
		rn := fixture(t, db, 5)
		c := openStream(t, g, rn, streamMsg, false)
		for {
			ev, ok := c.next(t)
			if !ok {
				t.Fatal("stream ended early")
			}
			if ev.event == "message_delta" {
				break
			}
		}
		c.resp.Body.Close()
		close(hold)
		deadline := time.Now().Add(20 * time.Second)
		for db.Run.GetX(ctx, rn.ID).OutputTokens == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the abandoned stream was not metered")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if got := db.Run.GetX(ctx, rn.ID); got.InputTokens == 0 || got.CostUsd <= 0 {
			t.Fatalf("metered %+v", got)
		}
	})
}

// TestGatewayStreamUpstreamError: a refused streaming request comes back as
// the upstream's JSON error, not metered.
func TestGatewayStreamUpstreamError(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		model := httptest.NewServer(scriptedmodel.New(scriptedmodel.Config{APIKey: "right"}))
		defer model.Close()
		g, _ := New(Config{DB: db, Log: slog.New(slog.DiscardHandler), UpstreamURL: model.URL, APIKey: "wrong"})
		rn := fixture(t, db, 5)
		w := post(t, g, rn, streamMsg, false)
		if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "authentication_error") {
			t.Fatalf("got %d %s", w.Code, w.Body)
		}
		if c := db.Run.GetX(context.Background(), rn.ID).CostUsd; c != 0 {
			t.Fatalf("an error answer was metered: %v", c)
		}
	})
}

func TestStreamUsage(t *testing.T) {
	var u streamUsage
	for _, ev := range []string{
		`{"type":"message_start","message":{"usage":{"input_tokens":100,"output_tokens":1,"cache_read_input_tokens":50,"cache_creation_input_tokens":7,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4}}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"usage":{"output_tokens":999}}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":40}}`,
		`{"type":"message_delta","delta":{},"usage":{"output_tokens":55,"input_tokens":120}}`, // cumulative: replaces
		`not json`,
	} {
		u.event([]byte(ev))
	}
	if want := (models.Usage{InputTokens: 120, OutputTokens: 55, CacheReadInputTokens: 50, CacheCreationInputTokens: 7,
		CacheCreation: &models.CacheCreation{Ephemeral5m: 3, Ephemeral1h: 4}}); !u.seen || !reflect.DeepEqual(u.Usage, want) {
		t.Fatalf("usage %+v, want %+v", u.Usage, want)
	}
}
