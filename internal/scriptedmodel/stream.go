package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// streamChunk is how many bytes of text (or of a tool's input JSON) one
// content_block_delta carries.
const streamChunk = 48

// writeStream sends resp as the Messages API's server-sent events
// (stream: true): message_start (with the input side of usage), ping, each
// content block as content_block_start, text_delta / input_json_delta pieces
// and content_block_stop, then message_delta (stop_reason and the cumulative
// output usage) and message_stop. Every event is flushed as it is written.
// hold, when set, is waited on before message_stop (tests: proves a relay
// passes events on before the stream ends).
func writeStream(w http.ResponseWriter, r *http.Request, resp response, hold <-chan struct{}) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		_ = rc.Flush()
	}
	start := resp
	start.Content = []outItem{}
	start.StopReason = ""
	start.Usage.OutputTokens = 1
	msg, _ := json.Marshal(start)
	var m map[string]any
	_ = json.Unmarshal(msg, &m)
	m["stop_reason"] = nil
	send("message_start", map[string]any{"type": "message_start", "message": m})
	send("ping", map[string]any{"type": "ping"})
	for i, it := range resp.Content {
		var block map[string]any
		var deltaType, field, rest string
		var signature string
		switch it.Type {
		case "thinking":
			block = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
			deltaType, field, rest, signature = "thinking_delta", "thinking", it.Thinking, it.Signature
		case "tool_use":
			block = map[string]any{"type": "tool_use", "id": it.ID, "name": it.Name, "input": map[string]any{}}
			deltaType, field, rest = "input_json_delta", "partial_json", string(it.Input)
		default:
			block = map[string]any{"type": "text", "text": ""}
			deltaType, field, rest = "text_delta", "text", it.Text
		}
		send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": block})
		for rest != "" {
			n := min(streamChunk, len(rest))
			for n < len(rest) && !utf8.RuneStart(rest[n]) {
				n++
			}
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": deltaType, field: rest[:n]}})
			rest = rest[n:]
		}
		if signature != "" {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "signature_delta", "signature": signature}})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": resp.StopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": resp.Usage.OutputTokens}})
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	send("message_stop", map[string]any{"type": "message_stop"})
}
