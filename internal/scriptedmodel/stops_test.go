package scriptedmodel

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestThinkingSignatureIsChecked(t *testing.T) {
	h := New(Config{Thinking: true, ThinkingTokens: 50})
	tools := []map[string]any{{"name": "Read", "input_schema": map[string]any{"type": "object"}}, {"name": "submit_result", "input_schema": map[string]any{"type": "object"}}}
	first := map[string]any{"role": "user", "content": "<pr_files>\na.go\n</pr_files>\n<diff>\n+x\n</diff>"}
	code, out := post(t, h, map[string]any{"model": "claude-haiku-4-5", "max_tokens": 1000, "tools": tools, "messages": []any{first}})
	content, _ := out["content"].([]any)
	if code != http.StatusOK || len(content) < 2 || content[0].(map[string]any)["type"] != "thinking" {
		t.Fatalf("first answer %d %v: want a thinking block first", code, out)
	}
	th := content[0].(map[string]any)
	if n := len(th["thinking"].(string)); n != 200 || th["signature"] == "" {
		t.Fatalf("thinking block %v", th)
	}
	var results []any
	for _, b := range content {
		if m := b.(map[string]any); m["type"] == "tool_use" {
			results = append(results, map[string]any{"type": "tool_result", "tool_use_id": m["id"], "content": "ok"})
		}
	}
	send := func(blocks []any) int {
		code, _ := post(t, h, map[string]any{"model": "claude-haiku-4-5", "max_tokens": 1000, "tools": tools, "messages": []any{
			first, map[string]any{"role": "assistant", "content": blocks}, map[string]any{"role": "user", "content": results}}})
		return code
	}
	if c := send(content); c != http.StatusOK {
		t.Fatalf("thinking sent back unaltered: %d", c)
	}
	forged := append([]any{map[string]any{"type": "thinking", "thinking": th["thinking"].(string) + " edited", "signature": th["signature"]}}, content[1:]...)
	if c := send(forged); c != http.StatusBadRequest {
		t.Fatalf("edited thinking: %d, want 400", c)
	}
}

func TestStopsLikeAModel(t *testing.T) {
	tools := []map[string]any{{"name": "submit_result", "input_schema": map[string]any{"type": "object"}}}
	ask := map[string]any{"role": "user", "content": "<diff>\n+// TODO later\n</diff>\ncall submit_result now"}
	cases := map[string]struct {
		cfg       Config
		maxTokens int
		stop      string
		last      string // type of the last block
	}{
		"fits":                        {Config{StopAtMaxTokens: true}, 4000, "tool_use", "tool_use"},
		"submit cut at max_tokens":    {Config{StopAtMaxTokens: true, Thinking: true, ThinkingTokens: 100}, 180, "max_tokens", "tool_use"},
		"thinking uses all the room":  {Config{StopAtMaxTokens: true, Thinking: true, ThinkingTokens: 500}, 300, "max_tokens", "thinking"},
		"max_tokens off by default":   {Config{Thinking: true, ThinkingTokens: 500}, 300, "tool_use", "tool_use"},
		"refusal on the first answer": {Config{RefuseAt: 1}, 4000, "refusal", ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			code, out := post(t, New(c.cfg), map[string]any{"model": "claude-haiku-4-5", "max_tokens": c.maxTokens, "tools": tools, "messages": []any{ask}})
			if code != http.StatusOK || out["stop_reason"] != c.stop {
				t.Fatalf("%d %v: want stop_reason %s", code, out, c.stop)
			}
			content, _ := out["content"].([]any)
			last := ""
			if len(content) > 0 {
				last, _ = content[len(content)-1].(map[string]any)["type"].(string)
			}
			if last != c.last {
				t.Fatalf("last block %q, want %q: %v", last, c.last, content)
			}
			if c.stop == "max_tokens" {
				if u := out["usage"].(map[string]any); u["output_tokens"].(float64) != float64(c.maxTokens) {
					t.Fatalf("output tokens %v, want max_tokens %d", u["output_tokens"], c.maxTokens)
				}
				if in, _ := content[len(content)-1].(map[string]any)["input"].(map[string]any); c.last == "tool_use" && len(in) != 0 {
					t.Fatalf("a cut tool call kept input %v", in)
				}
			}
		})
	}
}

func TestThinkingStreams(t *testing.T) {
	b, _ := json.Marshal(map[string]any{"model": "claude-haiku-4-5", "max_tokens": 1000, "stream": true,
		"messages": []any{map[string]any{"role": "user", "content": "hi"}}})
	rec := httptest.NewRecorder()
	New(Config{Thinking: true, ThinkingTokens: 30}).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(b)))
	body := rec.Body.String()
	for _, want := range []string{`"type":"thinking"`, `"type":"thinking_delta"`, `"type":"signature_delta"`, `"type":"text_delta"`} {
		if !strings.Contains(body, want) {
			t.Fatalf("stream lacks %s:\n%s", want, body)
		}
	}
}
