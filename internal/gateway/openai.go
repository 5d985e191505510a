package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/models"
)

// OpenAIConfig reaches an OpenAI-compatible Chat Completions server.
type OpenAIConfig struct {
	// BaseURL ends in /v1 (vLLM http://host:8000/v1, Ollama
	// http://host:11434/v1, LiteLLM, Azure OpenAI
	// https://{resource}.openai.azure.com/openai/v1).
	BaseURL string
	// APIKey is sent as a bearer token (and as api-key to Azure).
	APIKey     string
	HTTPClient *http.Client
}

// openAIUpstream translates the Messages API to Chat Completions and back
// (OpenAI API reference, "Create chat completion" and "The chat completion
// chunk object"): the system prompt becomes a system message; tool_use
// blocks become the assistant's tool_calls (arguments as a JSON string);
// tool_result blocks become "tool" messages with their tool_call_id; tools
// become function tools; usage.prompt_tokens (with
// prompt_tokens_details.cached_tokens) and completion_tokens become the
// Messages usage. A stream asks for stream_options.include_usage, whose last
// chunk carries the usage, and its deltas (text, and tool calls whose
// arguments arrive in pieces by index) become the Messages API's events.
type openAIUpstream struct {
	endpoint, key string
	azure         bool
	client        *http.Client
}

// NewOpenAI is the OpenAI-compatible provider.
func NewOpenAI(cfg OpenAIConfig, fallback *http.Client) (Upstream, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: CHAKSHU_OPENAI_URL %q is not an http(s) URL", cfg.BaseURL)
	}
	return &openAIUpstream{endpoint: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions", key: cfg.APIKey,
		azure: strings.HasSuffix(u.Hostname(), ".azure.com"), client: httpClient(cfg.HTTPClient, fallback)}, nil
}

// Messages API request, the parts that translate.
type mRequest struct {
	Model         string          `json:"model"`
	MaxTokens     int             `json:"max_tokens"`
	System        json.RawMessage `json:"system"`
	Messages      []mMessage      `json:"messages"`
	Tools         []mTool         `json:"tools"`
	ToolChoice    *mToolChoice    `json:"tool_choice"`
	Temperature   *float64        `json:"temperature"`
	TopP          *float64        `json:"top_p"`
	StopSequences []string        `json:"stop_sequences"`
	Stream        bool            `json:"stream"`
}

type mMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type mBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type mTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type mToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// Chat Completions request.
type oMessage struct {
	Role       string      `json:"role"`
	Content    any         `json:"content"`
	ToolCalls  []oToolCall `json:"tool_calls,omitempty"`
	ToolCallID string      `json:"tool_call_id,omitempty"`
}

type oToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// blocks reads content that is a string or an array of blocks.
func blocks(raw json.RawMessage) []mBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []mBlock{{Type: "text", Text: s}}
	}
	var bs []mBlock
	_ = json.Unmarshal(raw, &bs)
	return bs
}

func texts(bs []mBlock) string {
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// toChat translates a Messages request body.
func toChat(body []byte) ([]byte, error) {
	var r mRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	var msgs []oMessage
	if len(r.System) > 0 && string(r.System) != "null" {
		if s := texts(blocks(r.System)); s != "" {
			msgs = append(msgs, oMessage{Role: "system", Content: s})
		}
	}
	for _, m := range r.Messages {
		bs := blocks(m.Content)
		if m.Role == "assistant" {
			om := oMessage{Role: "assistant"}
			if t := texts(bs); t != "" {
				om.Content = t
			}
			for _, b := range bs {
				if b.Type != "tool_use" {
					continue
				}
				tc := oToolCall{ID: b.ID, Type: "function"}
				tc.Function.Name = b.Name
				tc.Function.Arguments = string(b.Input)
				if len(b.Input) == 0 {
					tc.Function.Arguments = "{}"
				}
				om.ToolCalls = append(om.ToolCalls, tc)
			}
			msgs = append(msgs, om)
			continue
		}
		// A user turn: tool results first (each a "tool" message answering
		// the assistant's call), then any text as a user message.
		for _, b := range bs {
			if b.Type == "tool_result" {
				content := texts(blocks(b.Content))
				if b.IsError {
					content = "Error: " + content
				}
				msgs = append(msgs, oMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: content})
			}
		}
		if t := texts(bs); t != "" {
			msgs = append(msgs, oMessage{Role: "user", Content: t})
		}
	}
	out := map[string]any{"model": r.Model, "messages": msgs}
	if r.MaxTokens > 0 {
		out["max_tokens"] = r.MaxTokens
	}
	if r.Temperature != nil {
		out["temperature"] = *r.Temperature
	}
	if r.TopP != nil {
		out["top_p"] = *r.TopP
	}
	if len(r.StopSequences) > 0 {
		out["stop"] = r.StopSequences
	}
	if len(r.Tools) > 0 {
		var tools []map[string]any
		for _, t := range r.Tools {
			fn := map[string]any{"name": t.Name, "parameters": t.InputSchema}
			if t.Description != "" {
				fn["description"] = t.Description
			}
			tools = append(tools, map[string]any{"type": "function", "function": fn})
		}
		out["tools"] = tools
	}
	if tc := r.ToolChoice; tc != nil {
		switch tc.Type {
		case "auto":
			out["tool_choice"] = "auto"
		case "any":
			out["tool_choice"] = "required"
		case "none":
			out["tool_choice"] = "none"
		case "tool":
			out["tool_choice"] = map[string]any{"type": "function", "function": map[string]string{"name": tc.Name}}
		}
	}
	if r.Stream {
		out["stream"] = true
		out["stream_options"] = map[string]bool{"include_usage": true}
	}
	return json.Marshal(out)
}

// oUsage is Chat Completions' usage.
type oUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (u *oUsage) messages() models.Usage {
	cached := int64(0)
	if u.PromptTokensDetails != nil {
		cached = u.PromptTokensDetails.CachedTokens
	}
	return models.Usage{InputTokens: u.PromptTokens - cached, CacheReadInputTokens: cached, OutputTokens: u.CompletionTokens}
}

// stopReason maps finish_reason to stop_reason.
func stopReason(f string) string {
	switch f {
	case "length":
		return "max_tokens"
	case "tool_calls", "function_call":
		return "tool_use"
	case "content_filter":
		return "refusal"
	}
	return "end_turn"
}

// toolInput is a tool call's arguments as an object ({} when the model's
// JSON is broken, so the tool answers with its own error).
func toolInput(args string) json.RawMessage {
	var v map[string]any
	if json.Unmarshal([]byte(args), &v) != nil {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(args)
}

// fromChat translates a Chat Completions answer to a Messages answer.
func fromChat(b []byte, model string, promptBytes int) ([]byte, error) {
	var r struct {
		ID      string `json:"id"`
		Choices []struct {
			Message struct {
				Content   *string     `json:"content"`
				ToolCalls []oToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *oUsage `json:"usage"`
	}
	if err := json.Unmarshal(b, &r); err != nil || len(r.Choices) == 0 {
		return nil, errors.New("openai: the answer has no choices")
	}
	c := r.Choices[0]
	content := []map[string]any{}
	if c.Message.Content != nil && *c.Message.Content != "" {
		content = append(content, map[string]any{"type": "text", "text": *c.Message.Content})
	}
	for _, tc := range c.Message.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Function.Name, "input": toolInput(tc.Function.Arguments)})
	}
	var u models.Usage
	if r.Usage != nil {
		u = r.Usage.messages()
	} else {
		out := 0
		for _, c := range content {
			bb, _ := json.Marshal(c)
			out += len(bb)
		}
		u = estimate(promptBytes, out)
	}
	return json.Marshal(map[string]any{"id": r.ID, "type": "message", "role": "assistant", "model": model, "content": content,
		"stop_reason": stopReason(c.FinishReason), "stop_sequence": nil, "usage": u})
}

func (u *openAIUpstream) Send(ctx context.Context, c Call) (*http.Response, error) {
	body, err := toChat(c.Body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if u.key != "" {
		req.Header.Set("Authorization", "Bearer "+u.key)
		if u.azure { // Azure OpenAI's key header (its v1 API, learn.microsoft.com "Azure OpenAI API version lifecycle", also takes the bearer)
			req.Header.Set("api-key", u.key)
		}
	}
	resp, err := u.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		b := readCapped(resp.Body, 64<<10)
		var e struct {
			Error struct {
				Message string `json:"message"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		kind := classifyStatus(resp.StatusCode)
		if resp.StatusCode == http.StatusBadRequest && strings.Contains(strings.ToLower(e.Error.Message), "model") &&
			strings.Contains(strings.ToLower(e.Error.Message), "not found") {
			kind = CodeNotEnabled // vLLM answers 400/404 "The model `x` does not exist"; Ollama 404 "model not found"
		}
		return nil, refusal(models.ProviderOpenAI, c.Model, resp.StatusCode, kind, trimDetail(b), resp.Header.Get("retry-after"))
	}
	if !c.Stream {
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, defaultRespLimit))
		if err != nil {
			return nil, err
		}
		out, err := fromChat(b, c.Model, len(body))
		if err != nil {
			return nil, err
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(bytes.NewReader(out)), ContentLength: int64(len(out))}, nil
	}
	pr, pw := io.Pipe()
	go func() {
		defer resp.Body.Close()
		pw.CloseWithError(translateStream(resp.Body, pw, c.Model, len(body)))
	}()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr, ContentLength: -1}, nil
}

// translateStream turns Chat Completions chunks into the Messages API's
// events: message_start at the first chunk; a text block for content
// deltas; a tool_use block per tool call index, its arguments as
// input_json_delta pieces; then message_delta (stop reason and the usage of
// the include_usage chunk) and message_stop at [DONE]. A stream that ends
// without [DONE] is an error.
func translateStream(r io.Reader, w io.Writer, model string, promptBytes int) error {
	emit := func(event string, v any) error {
		b, _ := json.Marshal(v)
		_, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		return err
	}
	started := false
	open := -1 // index of the open content block
	kind := "" // "text" or "tool:<openai index>"
	next := 0
	stop := "end_turn"
	var usage *models.Usage
	outBytes := 0
	closeBlock := func() error {
		if open < 0 {
			return nil
		}
		err := emit("content_block_stop", map[string]any{"type": "content_block_stop", "index": open})
		open, kind = -1, ""
		return err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			if !started {
				return errors.New("openai: the stream ended before any chunk")
			}
			if err := closeBlock(); err != nil {
				return err
			}
			if usage == nil {
				e := estimate(promptBytes, outBytes)
				usage = &e
			}
			if err := emit("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
				"usage": usage}); err != nil {
				return err
			}
			return emit("message_stop", map[string]any{"type": "message_stop"})
		}
		var ch struct {
			ID      string `json:"id"`
			Choices []struct {
				Delta struct {
					Content   *string     `json:"content"`
					ToolCalls []oToolCall `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *oUsage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return fmt.Errorf("openai: bad chunk: %w", err)
		}
		if !started {
			started = true
			if err := emit("message_start", map[string]any{"type": "message_start", "message": map[string]any{
				"id": ch.ID, "type": "message", "role": "assistant", "model": model, "content": []any{},
				"stop_reason": nil, "stop_sequence": nil, "usage": models.Usage{}}}); err != nil {
				return err
			}
		}
		if ch.Usage != nil {
			m := ch.Usage.messages()
			usage = &m
		}
		for _, c := range ch.Choices {
			if t := c.Delta.Content; t != nil && *t != "" {
				if kind != "text" {
					if err := closeBlock(); err != nil {
						return err
					}
					open, kind = next, "text"
					next++
					if err := emit("content_block_start", map[string]any{"type": "content_block_start", "index": open,
						"content_block": map[string]any{"type": "text", "text": ""}}); err != nil {
						return err
					}
				}
				outBytes += len(*t)
				if err := emit("content_block_delta", map[string]any{"type": "content_block_delta", "index": open,
					"delta": map[string]any{"type": "text_delta", "text": *t}}); err != nil {
					return err
				}
			}
			for _, tc := range c.Delta.ToolCalls {
				idx := 0
				if tc.Index != nil {
					idx = *tc.Index
				}
				k := fmt.Sprintf("tool:%d", idx)
				if kind != k {
					if err := closeBlock(); err != nil {
						return err
					}
					open, kind = next, k
					next++
					if err := emit("content_block_start", map[string]any{"type": "content_block_start", "index": open,
						"content_block": map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Function.Name, "input": map[string]any{}}}); err != nil {
						return err
					}
				}
				outBytes += len(tc.Function.Name) + len(tc.Function.Arguments)
				if a := tc.Function.Arguments; a != "" {
					if err := emit("content_block_delta", map[string]any{"type": "content_block_delta", "index": open,
						"delta": map[string]any{"type": "input_json_delta", "partial_json": a}}); err != nil {
						return err
					}
				}
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				stop = stopReason(*c.FinishReason)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("openai: the stream ended without [DONE]")
}

// estimate is the usage of an answer from a server that reported none (it
// ignored stream_options.include_usage, or has no usage at all): about four
// bytes a token, so the run's cost cap still holds at the entry's price.
func estimate(promptBytes, outBytes int) models.Usage {
	return models.Usage{InputTokens: int64(promptBytes+3) / 4, OutputTokens: int64(outBytes+3)/4 + 1}
}
