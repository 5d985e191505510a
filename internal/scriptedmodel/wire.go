package scriptedmodel

import (
	"encoding/json"
	"strings"
)

// The subset of the Anthropic Messages API wire format the scripted model
// reads and writes.

type request struct {
	Model      string          `json:"model"`
	MaxTokens  int             `json:"max_tokens"`
	System     json.RawMessage `json:"system,omitempty"`
	Messages   []message       `json:"messages"`
	Tools      []tool          `json:"tools,omitempty"`
	ToolChoice *toolChoice     `json:"tool_choice,omitempty"`
	// Thinking is kept only as part of the cache key.
	Thinking json.RawMessage `json:"thinking,omitempty"`
	Stream   bool            `json:"stream,omitempty"`
	// InferenceGeo is where inference should run (docs "Data residency").
	InferenceGeo string `json:"inference_geo,omitempty"`
}

type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
}

type toolChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// block is any content block; fields unused by a type stay empty.
type block struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      json.RawMessage `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
	Thinking     string          `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
}

type response struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	Role         string    `json:"role"`
	Model        string    `json:"model"`
	Content      []outItem `json:"content"`
	StopReason   string    `json:"stop_reason"`
	StopSequence *string   `json:"stop_sequence"`
	Usage        usage     `json:"usage"`
}

type outItem struct {
	Type      string          `json:"type"`
	Thinking  string          `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	// CacheCreation splits the writes by lifetime, as the API reports them.
	CacheCreation cacheCreation `json:"cache_creation"`
	// InferenceGeo is where inference ran, for models that take the
	// parameter (Claude Opus 4.6 and later; docs "Data residency").
	InferenceGeo string `json:"inference_geo,omitempty"`
}

type cacheCreation struct {
	Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

// blocks decodes a content field: a string or an array of blocks.
func blocks(raw json.RawMessage) ([]block, error) {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		var t string
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, err
		}
		return []block{{Type: "text", Text: t}}, nil
	}
	var bs []block
	err := json.Unmarshal(raw, &bs)
	return bs, err
}

// text joins the text of blocks (and of tool results' content).
func text(bs []block) string {
	var b strings.Builder
	for _, x := range bs {
		switch x.Type {
		case "text":
			b.WriteString(x.Text)
			b.WriteByte('\n')
		case "tool_result":
			if inner, err := blocks(x.Content); err == nil {
				b.WriteString(text(inner))
			}
		}
	}
	return b.String()
}

func systemText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	bs, err := blocks(raw)
	if err != nil {
		return ""
	}
	return text(bs)
}
