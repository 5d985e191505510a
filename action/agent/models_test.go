package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/scriptedmodel"
)

// bodies records what the agent sent the model.
type bodies struct {
	h  http.Handler
	mu sync.Mutex
	b  []string
}

func (c *bodies) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.b = append(c.b, string(b))
	c.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	c.h.ServeHTTP(w, r)
}

// recordedRun runs job against the dawdling scripted model (asked for its
// result, it submits) and returns the request bodies it was sent.
func recordedRun(t *testing.T, job runnerproto.Job) *bodies {
	t.Helper()
	cfg, _, log := setup(t, scriptedmodel.Config{Dawdle: true}, job)
	rec := &bodies{h: scriptedmodel.New(scriptedmodel.Config{Dawdle: true, APIKey: "chkr_token"})}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	cfg.Job.ModelURL, cfg.HTTPClient = srv.URL, srv.Client()
	if out := Run(context.Background(), cfg); out.Result == nil {
		t.Fatalf("no result: %+v\n%s", out.Failure, log)
	}
	return rec
}

// The agent hands in exactly one result on every model: forcing the submit
// tool where the model allows it, asking in words with tool_choice auto
// where forcing is a 400 (the scripted model refuses it as the API does).
func TestSubmitsOnEveryCapability(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name   string
		model  string
		job    *bool
		forced bool
	}{
		{"forced allowed (Haiku 4.5)", "claude-haiku-4-5", nil, true},
		{"forced refused (Sonnet 5.5)", "claude-sonnet-5-5", nil, false},
		{"forced refused (Opus 5.5)", "claude-opus-5-5", nil, false},
		{"job says no", "claude-haiku-4-5", &no, false},
		{"job says yes", "claude-sonnet-5", &yes, true},
		{"model unknown to the runner", "acme-tuned", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := forcedToolChoice(&runnerproto.Job{Model: c.model, ForcedToolChoice: c.job}); got != c.forced {
				t.Fatalf("forcedToolChoice = %v, want %v", got, c.forced)
			}
			if c.model == "acme-tuned" {
				return // the scripted model serves catalogue ids only
			}
			cfg, _, log := setup(t, scriptedmodel.Config{Dawdle: true}, runnerproto.Job{MaxTurns: 6, Model: c.model, ForcedToolChoice: c.job})
			out := Run(context.Background(), cfg)
			if out.Failure != nil || out.Result == nil {
				t.Fatalf("no result: %+v\n%s", out.Failure, log)
			}
			if _, err := reviewOf(out); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(log.String(), "✓ result submitted"); n != 1 {
				t.Fatalf("%d submissions", n)
			}
			lead := 1
			if !c.forced {
				lead = 2
			}
			// Asked at maxTurns-lead: the dawdling model submits on that turn.
			if out.Turns != 6-lead+1 {
				t.Fatalf("submitted on turn %d, want %d", out.Turns, 6-lead+1)
			}
		})
	}
}

// The request bodies show the choice: type tool only for models that allow it.
func TestToolChoicePerCapability(t *testing.T) {
	for model, forced := range map[string]bool{"claude-haiku-4-5": true, "claude-sonnet-5-5": false} {
		t.Run(model, func(t *testing.T) {
			rec := recordedRun(t, runnerproto.Job{MaxTurns: 4, Model: model})
			last := rec.b[len(rec.b)-1]
			if got := strings.Contains(last, `"tool_choice":{"name":"submit_result","type":"tool"}`); got != forced {
				t.Fatalf("forced tool choice sent = %v, want %v", got, forced)
			}
			if !strings.Contains(last, "call submit_result now") {
				t.Fatal("the last request does not ask for the result in words")
			}
			for _, b := range rec.b[:len(rec.b)-1] {
				if strings.Contains(b, `"tool_choice"`) && strings.Contains(b, `"type":"tool"`) && !forced {
					t.Fatal("a forced tool choice went to a model that refuses it")
				}
			}
		})
	}
}

// A burst of 529 overloaded answers is waited out; the review goes on.
func TestOverloadIsRetried(t *testing.T) {
	cfg, c, log := setup(t, scriptedmodel.Config{Overloaded: 3, OverloadRetryAfter: "0"}, runnerproto.Job{MaxTurns: 10})
	out := Run(context.Background(), cfg)
	if out.Failure != nil {
		t.Fatalf("failure %+v\n%s", out.Failure, log)
	}
	if int(c.n.Load()) != out.Turns+3 {
		t.Fatalf("%d requests for %d turns, want 3 retries", c.n.Load(), out.Turns)
	}
}

// A model that stays overloaded past the horizon fails the run with a safe sentence.
func TestOverloadPastTheHorizonFails(t *testing.T) {
	cfg, c, log := setup(t, scriptedmodel.Config{Overloaded: 1 << 30, OverloadRetryAfter: "0"}, runnerproto.Job{MaxTurns: 10})
	cfg.RetryHorizon = 300 * time.Millisecond
	start := time.Now()
	out := Run(context.Background(), cfg)
	if out.Failure == nil || out.Failure.Reason != ReasonOverloaded {
		t.Fatalf("outcome %+v\n%s", out.Failure, log)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v for a 300ms horizon", d)
	}
	// At least 50 ms between attempts: at most 300/50 + 1 of them.
	if n := c.n.Load(); n < 2 || n > 7 {
		t.Fatalf("%d attempts", n)
	}
}

// The retrier against a fake clock: the server's advice is followed until
// the next wait would pass the horizon (at the horizon still retried).
func TestRetrierHorizon(t *testing.T) {
	type answer struct {
		status int
		hdr    map[string]string
	}
	overloaded := answer{529, map[string]string{"retry-after-ms": "30000"}}
	cases := []struct {
		name     string
		horizon  time.Duration
		answers  []answer
		attempts int
		status   int
	}{
		{"at the horizon", 2 * time.Minute, []answer{overloaded}, 5, 529},                    // 0, 30, 60, 90, 120 s
		{"just short of it", 2*time.Minute - time.Millisecond, []answer{overloaded}, 4, 529}, // 120 s would pass it
		{"recovers", 2 * time.Minute, []answer{overloaded, overloaded, {200, nil}}, 3, 200},
		{"should-retry false", 2 * time.Minute, []answer{{529, map[string]string{"x-should-retry": "false"}}}, 1, 529},
		{"bad request", 2 * time.Minute, []answer{{400, nil}}, 1, 400},
		{"rate limited, retry-after seconds", 2 * time.Minute, []answer{{429, map[string]string{"retry-after": "60"}}}, 3, 429},
		{"5xx with backoff", 2 * time.Minute, []answer{{500, nil}, {200, nil}}, 2, 200},
		{"should-retry true on 400", 2 * time.Minute, []answer{{400, map[string]string{"x-should-retry": "true", "retry-after": "1"}}, {200, nil}}, 2, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			rt := newRetrier(c.horizon)
			rt.now = func() time.Time { return now }
			rt.sleep = func(_ *http.Request, d time.Duration) bool { now = now.Add(d); return true }
			var seen []string
			next := func(req *http.Request) (*http.Response, error) {
				b, _ := io.ReadAll(req.Body)
				seen = append(seen, string(b))
				a := c.answers[min(len(seen)-1, len(c.answers)-1)]
				resp := &http.Response{StatusCode: a.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}"))}
				for k, v := range a.hdr {
					resp.Header.Set(k, v)
				}
				return resp, nil
			}
			req := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(`{"model":"m"}`))
			resp, err := rt.middleware(req, next)
			if err != nil {
				t.Fatal(err)
			}
			if rt.attempts != c.attempts || resp.StatusCode != c.status {
				t.Fatalf("%d attempts ending %d, want %d ending %d", rt.attempts, resp.StatusCode, c.attempts, c.status)
			}
			for _, b := range seen {
				if b != `{"model":"m"}` {
					t.Fatalf("attempt sent %q", b)
				}
			}
			if c.status >= 500 && resp.Header.Get("x-should-retry") != "false" {
				t.Error("the SDK may still retry the given-up answer")
			}
		})
	}
}

// The retry horizon comes from the agent's Config, else the job's
// retry_seconds (the server's CHAKSHU_MODEL_RETRY_HORIZON), else 2 minutes;
// and the job's horizon holds at its limit: a wait that ends exactly on it
// is still taken, one that ends a second past it is not.
func TestRetryHorizonFromTheJob(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  time.Duration
		job  int
		want time.Duration
	}{
		{"default", 0, 0, DefaultRetryHorizon},
		{"job", 0, 300, 5 * time.Minute},
		{"config wins", time.Second, 300, time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, _, _ := setup(t, scriptedmodel.Config{}, runnerproto.Job{RetrySeconds: c.job})
			cfg.RetryHorizon = c.cfg
			r, err := newRun(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r.retrier.horizon != c.want {
				t.Fatalf("horizon %v, want %v", r.retrier.horizon, c.want)
			}
		})
	}
	for _, c := range []struct {
		name     string
		after    string
		attempts int
		status   int
	}{
		{"wait ends on the horizon", "60", 2, 200},
		{"wait ends past it", "61", 1, 529},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, _, _ := setup(t, scriptedmodel.Config{}, runnerproto.Job{RetrySeconds: 60})
			r, err := newRun(cfg)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			r.retrier.now = func() time.Time { return now }
			r.retrier.sleep = func(_ *http.Request, d time.Duration) bool { now = now.Add(d); return true }
			n := 0
			next := func(*http.Request) (*http.Response, error) {
				n++
				resp := &http.Response{StatusCode: 529, Header: http.Header{"Retry-After": {c.after}}, Body: io.NopCloser(strings.NewReader("{}"))}
				if n > 1 {
					resp = &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("{}"))}
				}
				return resp, nil
			}
			resp, err := r.retrier.middleware(httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader("{}")), next)
			if err != nil || n != c.attempts || resp.StatusCode != c.status {
				t.Fatalf("%d attempts ending %d (%v), want %d ending %d", n, resp.StatusCode, err, c.attempts, c.status)
			}
		})
	}
}

// The cache breakpoints of every request: the last tool, the system prompt,
// and the last block of the newest user turn and of the turn before it (so a
// turn of more than 20 blocks still finds the previous entry within the
// API's lookback); never more than the API's 4, and older turns unmarked.
func TestCacheBreakpoints(t *testing.T) {
	rec := recordedRun(t, runnerproto.Job{MaxTurns: 6, System: "Review carefully."})
	if len(rec.b) < 4 {
		t.Fatalf("%d requests, want a conversation of at least 4", len(rec.b))
	}
	type blk struct {
		CacheControl json.RawMessage `json:"cache_control"`
	}
	marked := func(bs []blk) []int {
		var out []int
		for i, b := range bs {
			if len(b.CacheControl) > 0 && string(b.CacheControl) != "null" {
				out = append(out, i)
			}
		}
		return out
	}
	for n, body := range rec.b {
		var req struct {
			Tools    []blk `json:"tools"`
			System   []blk `json:"system"`
			Messages []struct {
				Role    string `json:"role"`
				Content []blk  `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		if got := marked(req.Tools); !slices.Equal(got, []int{len(req.Tools) - 1}) {
			t.Errorf("request %d: tools marked %v", n, got)
		}
		if got := marked(req.System); !slices.Equal(got, []int{len(req.System) - 1}) {
			t.Errorf("request %d: system marked %v", n, got)
		}
		last := len(req.Messages) - 1
		want := [][2]int{{last, len(req.Messages[last].Content) - 1}}
		if last >= 2 {
			want = append([][2]int{{last - 2, len(req.Messages[last-2].Content) - 1}}, want...)
		}
		var got [][2]int
		for i, m := range req.Messages {
			for _, j := range marked(m.Content) {
				got = append(got, [2]int{i, j})
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("request %d: message breakpoints %v, want %v", n, got, want)
		}
	}
}

// A turn of many parallel tool calls (16 blocks from the model, 15 results)
// puts the previous prompt's end more than the API's 20 blocks back from
// the newest breakpoint: the request still reads the whole previous prompt
// from cache, because the previous turn keeps its breakpoint (the scripted
// model applies the lookback as documented).
func TestCacheSurvivesAWideTurn(t *testing.T) {
	var files []string
	for i := 0; i < 15; i++ {
		files = append(files, fmt.Sprintf("f%02d.go", i))
	}
	job := runnerproto.Job{MaxTurns: 10, System: strings.Repeat("Review carefully. ", 400),
		Prompt: "<pr_files>\n" + strings.Join(files, "\n") + "\n</pr_files>\n<diff>\n+// TODO\n</diff>"}
	cfg, _, log := setup(t, scriptedmodel.Config{}, job)
	rec := &usages{h: scriptedmodel.New(scriptedmodel.Config{Fanout: 15, APIKey: "chkr_token"})}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	cfg.Job.ModelURL, cfg.HTTPClient = srv.URL, srv.Client()
	if out := Run(context.Background(), cfg); out.Result == nil {
		t.Fatalf("no result: %+v\n%s", out.Failure, log)
	}
	if len(rec.u) < 2 {
		t.Fatalf("%d requests", len(rec.u))
	}
	first, second := rec.u[0], rec.u[1]
	if first.CacheCreationInputTokens == 0 || second.CacheReadInputTokens != first.CacheReadInputTokens+first.CacheCreationInputTokens {
		t.Fatalf("the request after the wide turn read %d, want all of the previous prompt (%+v)", second.CacheReadInputTokens, first)
	}
}

// usages records the usage of every answer, as the SDK reads it.
type usages struct {
	h http.Handler
	u []anthropic.Usage
}

func (c *usages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rw := httptest.NewRecorder()
	c.h.ServeHTTP(rw, r)
	var m anthropic.Message
	_ = json.Unmarshal(rw.Body.Bytes(), &m)
	c.u = append(c.u, m.Usage)
	maps.Copy(w.Header(), rw.Header())
	w.WriteHeader(rw.Code)
	_, _ = w.Write(rw.Body.Bytes())
}
