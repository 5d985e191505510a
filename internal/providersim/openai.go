package providersim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// OpenAIKey is the simulated server's API key.
const OpenAIKey = "sk-sim-openai-compatible-0123456789"

// OpenAI simulates an OpenAI-compatible Chat Completions server (the shape
// vLLM, Ollama, LiteLLM and Azure OpenAI serve; OpenAI API reference
// "Create chat completion", "The chat completion chunk object"). It asks the
// scripted model by translating the chat back into a Messages request, and
// answers as Chat Completions do: tool calls with JSON-string arguments,
// finish_reason, usage; streamed as "data:" chunks whose tool call
// arguments arrive in pieces by index, the usage in a last chunk with empty
// choices when stream_options.include_usage is set, then "data: [DONE]".
type OpenAI struct {
	// Model is the scripted model behind it.
	Model http.Handler
	// Models are the model names served, each with the Anthropic model id
	// the scripted model answers as.
	Models map[string]string
	// Key is the bearer key required; empty means OpenAIKey.
	Key string

	// meter counts completions and rate-limits (RateLimit).
	meter meter
}

// Calls is how many completions reached the model.
func (o *OpenAI) Calls() int { return o.meter.count() }

// RateLimit makes the next n completions answer 429.
func (o *OpenAI) RateLimit(n int) { o.meter.arm(n) }

func openAIError(w http.ResponseWriter, status int, typ, code, msg string) {
	jsonError(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code}})
}

func (o *OpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := o.Key
	if key == "" {
		key = OpenAIKey
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		openAIError(w, http.StatusNotFound, "invalid_request_error", "not_found", "Not found")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+key {
		openAIError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil || !gjson.ValidBytes(body) {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.")
		return
	}
	name := gjson.GetBytes(body, "model").String()
	model, ok := o.Models[name]
	if !ok {
		openAIError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", name))
		return
	}
	msgReq, err := chatToMessages(body, model)
	if err != nil {
		openAIError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	if !o.meter.take() {
		w.Header().Set("retry-after", "1")
		openAIError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "Rate limit reached for requests")
		return
	}
	rec := forward(o.Model, r, msgReq)
	if rec.Code != http.StatusOK {
		openAIError(w, rec.Code, "invalid_request_error", "", gjson.GetBytes(rec.Body.Bytes(), "error.message").String())
		return
	}
	ans := gjson.ParseBytes(rec.Body.Bytes())
	u := ans.Get("usage")
	cached := u.Get("cache_read_input_tokens").Int()
	prompt := u.Get("input_tokens").Int() + cached + u.Get("cache_creation_input_tokens").Int()
	usage := map[string]any{"prompt_tokens": prompt, "completion_tokens": u.Get("output_tokens").Int(),
		"total_tokens": prompt + u.Get("output_tokens").Int(), "prompt_tokens_details": map[string]int64{"cached_tokens": cached}}
	var text strings.Builder
	type call struct{ id, name, args string }
	var calls []call
	for _, b := range ans.Get("content").Array() {
		switch b.Get("type").String() {
		case "text":
			text.WriteString(b.Get("text").String())
		case "tool_use":
			calls = append(calls, call{b.Get("id").String(), b.Get("name").String(), b.Get("input").Raw})
		}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	id := "chatcmpl-" + strings.TrimPrefix(ans.Get("id").String(), "msg_")
	created := time.Now().Unix()
	if !gjson.GetBytes(body, "stream").Bool() {
		msg := map[string]any{"role": "assistant", "content": nil}
		if text.Len() > 0 {
			msg["content"] = text.String()
		}
		if len(calls) > 0 {
			var tcs []map[string]any
			for _, c := range calls {
				tcs = append(tcs, map[string]any{"id": c.id, "type": "function", "function": map[string]string{"name": c.name, "arguments": c.args}})
			}
			msg["tool_calls"] = tcs
		}
		jsonError(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": name,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	chunk := func(delta map[string]any, finish any, usage any) {
		choices := []any{}
		if delta != nil {
			choices = append(choices, map[string]any{"index": 0, "delta": delta, "finish_reason": finish})
		}
		b, _ := json.Marshal(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": name, "choices": choices, "usage": usage})
		fmt.Fprintf(w, "data: %s\n\n", b)
		_ = rc.Flush()
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	for _, piece := range pieces(text.String(), 24) {
		chunk(map[string]any{"content": piece}, nil, nil)
	}
	for i, c := range calls {
		// The first delta of a call carries its id, type and name; its
		// arguments follow in pieces under the same index.
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]string{"name": c.name, "arguments": ""}}}}, nil, nil)
		for _, piece := range pieces(c.args, 16) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]string{"arguments": piece}}}}, nil, nil)
		}
	}
	chunk(map[string]any{}, finish, nil)
	if gjson.GetBytes(body, "stream_options.include_usage").Bool() {
		chunk(nil, nil, usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	_ = rc.Flush()
}

func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// chatToMessages turns a chat request back into a Messages request for the
// scripted model: system messages into system, tool_calls into tool_use
// blocks, tool messages into tool_result blocks of the next user turn.
func chatToMessages(body []byte, model string) ([]byte, error) {
	req := gjson.ParseBytes(body)
	var system []string
	var msgs []map[string]any
	appendUser := func(block map[string]any) {
		if n := len(msgs); n > 0 && msgs[n-1]["role"] == "user" {
			msgs[n-1]["content"] = append(msgs[n-1]["content"].([]any), block)
			return
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": []any{block}})
	}
	for _, m := range req.Get("messages").Array() {
		content := m.Get("content")
		text := content.String()
		if content.IsArray() {
			var parts []string
			for _, p := range content.Array() {
				parts = append(parts, p.Get("text").String())
			}
			text = strings.Join(parts, "")
		}
		switch m.Get("role").String() {
		case "system", "developer":
			system = append(system, text)
		case "user":
			appendUser(map[string]any{"type": "text", "text": text})
		case "tool":
			if m.Get("tool_call_id").String() == "" {
				return nil, fmt.Errorf("messages: a tool message needs tool_call_id")
			}
			appendUser(map[string]any{"type": "tool_result", "tool_use_id": m.Get("tool_call_id").String(), "content": text})
		case "assistant":
			var blocks []any
			if text != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": text})
			}
			for _, tc := range m.Get("tool_calls").Array() {
				args := tc.Get("function.arguments").String()
				if !gjson.Valid(args) {
					return nil, fmt.Errorf("messages: tool call arguments are not JSON")
				}
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": tc.Get("id").String(), "name": tc.Get("function.name").String(),
					"input": json.RawMessage(args)})
			}
			msgs = append(msgs, map[string]any{"role": "assistant", "content": blocks})
		default:
			return nil, fmt.Errorf("messages: unknown role %q", m.Get("role").String())
		}
	}
	out := map[string]any{"model": model, "messages": msgs, "max_tokens": req.Get("max_tokens").Int()}
	if len(system) > 0 {
		out["system"] = strings.Join(system, "\n\n")
	}
	var tools []any
	for _, t := range req.Get("tools").Array() {
		if t.Get("type").String() != "function" {
			return nil, fmt.Errorf("tools: only function tools are served")
		}
		tools = append(tools, map[string]any{"name": t.Get("function.name").String(), "description": t.Get("function.description").String(),
			"input_schema": json.RawMessage(t.Get("function.parameters").Raw)})
	}
	if len(tools) > 0 {
		out["tools"] = tools
	}
	switch tc := req.Get("tool_choice"); {
	case tc.Type == gjson.String && tc.String() == "required":
		out["tool_choice"] = map[string]string{"type": "any"}
	case tc.IsObject():
		out["tool_choice"] = map[string]string{"type": "tool", "name": tc.Get("function.name").String()}
	}
	return json.Marshal(out)
}
