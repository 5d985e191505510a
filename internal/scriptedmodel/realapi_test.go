package scriptedmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/models"
)

func msgs(text string) []any { return []any{map[string]any{"role": "user", "content": text}} }

func errType(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	s, _ := e["type"].(string)
	return s
}

func TestModelsLikeTheAPI(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	h := New(Config{Now: func() time.Time { return now }})
	for _, c := range []struct {
		model  string
		status int
		typ    string
	}{
		{"claude-sonnet-5-5", 200, ""},
		{"claude-haiku-4-5", 200, ""},                 // documented alias
		{"claude-sonnet-4-5", 404, "not_found_error"}, // end of life 2026-11-30
		{"claude-opus-4-1", 404, "not_found_error"},   // retired
		{"claude-sonnet-5-5-2099", 404, "not_found_error"},
		{"claude-opus-4-5", 200, ""}, // deprecated, still served until 2027-01-22
	} {
		t.Run(c.model, func(t *testing.T) {
			code, out := post(t, h, map[string]any{"model": c.model, "max_tokens": 10, "messages": msgs("hi")})
			if code != c.status || errType(out) != c.typ {
				t.Fatalf("got %d %v, want %d %s", code, out, c.status, c.typ)
			}
			if c.status == 404 {
				if msg := out["error"].(map[string]any)["message"]; msg != "model: "+c.model {
					t.Errorf("message %q", msg)
				}
			}
		})
	}
}

func TestForcedToolChoicePerCatalogue(t *testing.T) {
	h := Handler()
	tools := []map[string]any{{"name": "submit_result", "input_schema": map[string]any{"type": "object"}}}
	for model, want := range map[string]int{"claude-sonnet-5-5": 400, "claude-opus-5-5": 400, "claude-haiku-4-5": 200, "claude-sonnet-5": 200} {
		code, out := post(t, h, map[string]any{"model": model, "max_tokens": 10, "tools": tools,
			"tool_choice": map[string]any{"type": "tool", "name": "submit_result"}, "messages": msgs("hi")})
		if code != want {
			t.Errorf("%s: forced tool choice answered %d %v, want %d", model, code, out, want)
		}
		if code, _ := post(t, h, map[string]any{"model": model, "max_tokens": 10, "tools": tools,
			"tool_choice": map[string]any{"type": "auto"}, "messages": msgs("hi")}); code != 200 {
			t.Errorf("%s: auto answered %d", model, code)
		}
	}
}

func TestOverloadBursts(t *testing.T) {
	for _, ra := range []string{"", "2"} {
		h := New(Config{Overloaded: 2, OverloadRetryAfter: ra})
		for i, want := range []int{529, 529, 200} {
			b, _ := json.Marshal(map[string]any{"model": "claude-sonnet-5-5", "max_tokens": 10, "messages": msgs("hi")})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(string(b))))
			if rec.Code != want {
				t.Fatalf("retry-after %q, request %d: %d", ra, i, rec.Code)
			}
			if want == 529 && (rec.Header().Get("retry-after") != ra || !strings.Contains(rec.Body.String(), "overloaded_error")) {
				t.Fatalf("529 answer: %v %s", rec.Header(), rec.Body)
			}
		}
	}
}

// cacheReq is a request whose system prompt is one block of n bytes marked
// for caching with ttl, followed by a user turn.
func cacheReq(model, system, ttl, user string, choice any) map[string]any {
	cc := map[string]any{"type": "ephemeral"}
	if ttl != "" {
		cc["ttl"] = ttl
	}
	r := map[string]any{"model": model, "max_tokens": 10,
		"tools":    []map[string]any{{"name": "submit_result", "input_schema": map[string]any{"type": "object"}}},
		"system":   []any{map[string]any{"type": "text", "text": system, "cache_control": cc}},
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": user, "cache_control": map[string]any{"type": "ephemeral"}}}}}}
	if choice != nil {
		r["tool_choice"] = choice
	}
	return r
}

type gotUsage struct {
	Input, Read, Write, W5m, W1h int64
}

func use(t *testing.T, h http.Handler, req map[string]any) gotUsage {
	t.Helper()
	code, out := post(t, h, req)
	if code != 200 {
		t.Fatalf("answer %d %v", code, out)
	}
	u := out["usage"].(map[string]any)
	cc := u["cache_creation"].(map[string]any)
	n := func(m map[string]any, k string) int64 { return int64(m[k].(float64)) }
	return gotUsage{n(u, "input_tokens"), n(u, "cache_read_input_tokens"), n(u, "cache_creation_input_tokens"),
		n(cc, "ephemeral_5m_input_tokens"), n(cc, "ephemeral_1h_input_tokens")}
}

// Prompt caching as documented (docs "Prompt caching"): a hit only for an
// identical prefix up to a breakpoint, written within its TTL; writes split
// by TTL; tool_choice changes invalidate the message blocks only.
func TestPromptCaching(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	h := New(Config{Now: func() time.Time { return now }})
	system := strings.Repeat("You review code carefully. ", 1000) // ~6,750 tokens
	model := "claude-sonnet-5-5"

	first := use(t, h, cacheReq(model, system, "", "turn one", nil))
	if first.Read != 0 || first.Write == 0 || first.W5m != first.Write || first.W1h != 0 {
		t.Fatalf("first request %+v: want a 5-minute write and no read", first)
	}
	again := use(t, h, cacheReq(model, system, "", "turn one", nil))
	if again.Read != first.Write || again.Write != 0 {
		t.Fatalf("identical request %+v: want all %d read", again, first.Write)
	}
	// A different last turn: the system prefix is read, the new turn written.
	other := use(t, h, cacheReq(model, system, "", "turn two", nil))
	if other.Read == 0 || other.Read >= first.Write || other.Write == 0 {
		t.Fatalf("new turn %+v: want the system read and the turn written", other)
	}
	// tool_choice changed: message blocks miss, tools and system still hit.
	forced := use(t, h, cacheReq(model, system, "", "turn one", map[string]any{"type": "any"}))
	if forced.Read != other.Read || forced.Write == 0 {
		t.Fatalf("tool_choice change %+v: want the prefix before the messages read (%d)", forced, other.Read)
	}
	// A changed system prompt shares no prefix past the tools: nothing read.
	changed := use(t, h, cacheReq(model, system+"!", "", "turn one", nil))
	if changed.Read != 0 {
		t.Fatalf("changed prefix %+v: read from cache", changed)
	}
	// Past 5 minutes the entry is gone; a 1-hour write survives it.
	now = now.Add(5*time.Minute + time.Second)
	expired := use(t, h, cacheReq(model, system, "", "turn one", nil))
	if expired.Read != 0 {
		t.Fatalf("after the TTL %+v: still read", expired)
	}
	long := use(t, h, cacheReq(model, system+" ", "1h", "turn one", nil))
	if long.W1h == 0 || long.W5m == 0 || long.W1h+long.W5m != long.Write {
		t.Fatalf("1h then 5m breakpoints %+v: want the split", long)
	}
	now = now.Add(30 * time.Minute)
	later := use(t, h, cacheReq(model, system+" ", "1h", "turn three", nil))
	if later.Read != long.W1h {
		t.Fatalf("30 minutes on %+v: want the 1-hour prefix (%d) read", later, long.W1h)
	}
}

// The minimum cacheable length is the model's (catalogue): a prefix of
// exactly that length is cached, one token shorter is not.
func TestMinimumCacheableLength(t *testing.T) {
	system := strings.Repeat("x", 4000)
	req := cacheReq("m", system, "", "hi", nil)
	req["messages"] = []any{map[string]any{"role": "user", "content": "hi"}} // one breakpoint: the system
	b, _ := json.Marshal(req)
	var parsed request
	json.Unmarshal(b, &parsed)
	pb, _, err := prefixBlocks(&parsed, marshal)
	if err != nil {
		t.Fatal(err)
	}
	var at int64
	for _, x := range pb {
		if x.mark {
			at = x.tokens
		}
	}
	for _, c := range []struct {
		min   int64
		write bool
	}{{at, true}, {at + 1, false}} {
		cat, err := models.Parse([]byte(`{"models":[{"id":"m","provider":"anthropic","price":{},"min_cache_tokens":`+
			strings.TrimSpace(string(mustJSON(c.min)))+`,"lifecycle":{"status":"active"}}]}`), "test")
		if err != nil {
			t.Fatal(err)
		}
		u := use(t, New(Config{Catalog: cat}), req)
		if (u.Write == at) != c.write || (!c.write && u.Write != 0) {
			t.Errorf("min %d, prefix %d: usage %+v", c.min, at, u)
		}
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestTooManyBreakpoints(t *testing.T) {
	cc := map[string]any{"type": "ephemeral"}
	var sys []any
	for i := 0; i < 5; i++ {
		sys = append(sys, map[string]any{"type": "text", "text": "part", "cache_control": cc})
	}
	code, out := post(t, Handler(), map[string]any{"model": "claude-sonnet-5-5", "max_tokens": 10, "system": sys[:4], "messages": msgs("hi")})
	if code != 200 {
		t.Fatalf("4 breakpoints: %d %v", code, out)
	}
	code, out = post(t, Handler(), map[string]any{"model": "claude-sonnet-5-5", "max_tokens": 10, "system": sys, "messages": msgs("hi")})
	if code != 400 || errType(out) != "invalid_request_error" {
		t.Fatalf("5 breakpoints: %d %v", code, out)
	}
}

// convo is a request whose system prompt (~6,750 tokens) is a breakpoint,
// followed by one user turn of n text blocks, the breakpoints on the blocks
// listed in marks.
func convo(n int, marks ...int) map[string]any {
	var content []any
	for i := 0; i < n; i++ {
		b := map[string]any{"type": "text", "text": fmt.Sprintf("block %d", i)}
		if slices.Contains(marks, i) {
			b["cache_control"] = map[string]any{"type": "ephemeral"}
		}
		content = append(content, b)
	}
	return map[string]any{"model": "claude-sonnet-5-5", "max_tokens": 10,
		"system":   []any{map[string]any{"type": "text", "text": strings.Repeat("You review code carefully. ", 1000), "cache_control": map[string]any{"type": "ephemeral"}}},
		"messages": []any{map[string]any{"role": "user", "content": content}}}
}

// The lookback (docs "Prompt caching": a breakpoint finds an earlier entry
// up to about 20 blocks before it): an entry 20 blocks back is read, one 21
// blocks back is not, and a second breakpoint brings it back into reach.
func TestCacheLookback(t *testing.T) {
	for _, c := range []struct {
		name   string
		blocks int
		marks  []int
		hit    bool
	}{
		{"20 blocks back", 21, []int{20}, true},
		{"21 blocks back", 22, []int{21}, false},
		{"21 back, with a breakpoint between", 22, []int{10, 21}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := Handler()
			first := use(t, h, convo(1, 0)) // writes system + block 0
			got := use(t, h, convo(c.blocks, c.marks...))
			readAll := got.Read == first.Write
			if readAll != c.hit {
				t.Fatalf("second request %+v (first wrote %d): hit %v, want %v", got, first.Write, readAll, c.hit)
			}
			if !c.hit && got.Read == 0 {
				t.Fatal("the system prompt's own breakpoint should still be read")
			}
		})
	}
}

// Requests the API refuses (docs "Prompt caching"): a 1-hour breakpoint after
// a 5-minute one, cache_control on an empty text block.
func TestCacheControlRefusals(t *testing.T) {
	h := Handler()
	req := cacheReq("claude-sonnet-5-5", "system", "", "hi", nil)
	req["messages"] = []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hi", "cache_control": map[string]any{"type": "ephemeral", "ttl": "1h"}}}}}
	if code, out := post(t, h, req); code != 400 || !strings.Contains(fmt.Sprint(out), "must not come after") {
		t.Fatalf("1h after 5m: %d %v", code, out)
	}
	req = cacheReq("claude-sonnet-5-5", "system", "1h", "hi", nil) // 1h then 5m is allowed
	if code, out := post(t, h, req); code != 200 {
		t.Fatalf("1h then 5m: %d %v", code, out)
	}
	req = cacheReq("claude-sonnet-5-5", "system", "", "", nil)
	if code, out := post(t, h, req); code != 400 || !strings.Contains(fmt.Sprint(out), "empty text blocks") {
		t.Fatalf("empty text block: %d %v", code, out)
	}
}

// What invalidates the cache (docs "Prompt caching"): thinking parameters and
// images change the messages cache only; how the JSON was escaped changes
// nothing (the prompt's content is the same, so are its tokens).
func TestCacheInvalidation(t *testing.T) {
	system := strings.Repeat("You review code carefully. ", 1000)
	h := Handler()
	base := use(t, h, cacheReq("claude-sonnet-5-5", system, "", "a <b> & c", nil))
	withThinking := cacheReq("claude-sonnet-5-5", system, "", "a <b> & c", nil)
	withThinking["thinking"] = map[string]any{"type": "adaptive"}
	th := use(t, h, withThinking)
	if th.Read == 0 || th.Read >= base.Write || th.Write == 0 {
		t.Fatalf("thinking changed %+v: want tools and system read (< %d), the messages written", th, base.Write)
	}
	img := cacheReq("claude-sonnet-5-5", system, "", "a <b> & c", nil)
	msgs := img["messages"].([]any)
	img["messages"] = append(msgs,
		map[string]any{"role": "assistant", "content": "ok"},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}}})
	im := use(t, h, img)
	if im.Read != th.Read {
		t.Fatalf("an image added %+v: want only tools and system read (%d)", im, th.Read)
	}
	// The same request without the escapes Go's encoder adds (\u003c,
	// \u0026 in base's body): the same content, so a full hit and the same
	// input tokens.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(cacheReq("claude-sonnet-5-5", system, "", "a <b> & c", nil))
	if !strings.Contains(buf.String(), "a <b> & c") {
		t.Fatal("test request escaped")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", &buf))
	var out struct{ Usage usage }
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	if out.Usage.CacheReadInputTokens != base.Write || out.Usage.InputTokens != base.Input {
		t.Fatalf("unescaped request %+v: want %d read and input %d as escaped", out.Usage, base.Write, base.Input)
	}
}

// A cache entry is readable only once the answer of the request that wrote
// it has begun (docs "Prompt caching", Cache limitations: "a cache entry
// only becomes available after the first response begins"): a request sent
// while the writer still waits misses and writes the prefix again; one sent
// after the answer reads it.
func TestCacheEntryAfterTheWritersAnswer(t *testing.T) {
	seen := make(chan struct{}, 3)
	h := New(Config{Latency: 300 * time.Millisecond, Seen: func(string, string) { seen <- struct{}{} }})
	system := strings.Repeat("You review code carefully. ", 1000)
	first := make(chan gotUsage, 1)
	go func() { first <- use(t, h, cacheReq("claude-sonnet-5-5", system, "", "pass 1", nil)) }()
	<-seen // the writer has started; its answer comes 300 ms later
	during := use(t, h, cacheReq("claude-sonnet-5-5", system, "", "pass 2", nil))
	w := <-first
	after := use(t, h, cacheReq("claude-sonnet-5-5", system, "", "pass 3", nil))
	if w.Write == 0 || w.Read != 0 {
		t.Fatalf("writer %+v: want a write", w)
	}
	if during.Read != 0 || during.Write == 0 {
		t.Errorf("sent while the writer waited: %+v, want a miss that writes again", during)
	}
	if after.Read == 0 {
		t.Errorf("sent after the writer's answer: %+v, want the prefix read", after)
	}
}
