package scriptedmodel

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
)

// TestStreamMatchesMessage: with stream: true the model sends the same
// message as server-sent events, and Anthropic's own SDK, accumulating the
// events, rebuilds exactly the non-streamed answer (content, stop reason,
// usage): the event format is the API's.
func TestStreamMatchesMessage(t *testing.T) {
	srv := httptest.NewServer(New(Config{APIKey: "k"}))
	defer srv.Close()
	client := anthropic.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(srv.URL), option.WithHeader("x-api-key", "k"), option.WithMaxRetries(0))
	ctx := context.Background()
	prompt := "<pr_files>\nstore/users.go\nweb/app.ts\n</pr_files>\n<diff>" + diff + "</diff>"
	tool := func(name string) anthropic.ToolUnionParam {
		return anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: name, InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{}}}}
	}
	params := anthropic.MessageNewParams{
		Model: "claude-sonnet-5-5", MaxTokens: 1000,
		System:   []anthropic.TextBlockParam{{Text: "You review code. Ünïcödé text is split on rune boundaries."}},
		Tools:    []anthropic.ToolUnionParam{tool("Read"), tool("Glob"), tool("Grep"), tool("submit_result")},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	}
	// Play the review to its submit_result both ways, turn by turn.
	for turn := 0; turn < 12; turn++ {
		want, err := client.Messages.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		stream := client.Messages.NewStreaming(ctx, params)
		var got anthropic.Message
		events := map[string]int{}
		for stream.Next() {
			ev := stream.Current()
			events[ev.Type]++
			if err := got.Accumulate(ev); err != nil {
				t.Fatalf("turn %d: accumulate %s: %v", turn, ev.Type, err)
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatalf("turn %d: stream: %v", turn, err)
		}
		if events["message_start"] != 1 || events["message_delta"] != 1 || events["message_stop"] != 1 ||
			events["content_block_start"] != len(want.Content) || events["content_block_stop"] != len(want.Content) {
			t.Fatalf("turn %d: events %v for %d blocks", turn, events, len(want.Content))
		}
		// Usage is computed from the request's size, which "stream":true grows
		// by a few bytes: input_tokens may differ by the tokens of those bytes.
		if d := got.Usage.InputTokens - want.Usage.InputTokens; d < 0 || d > tokens(len(`,"stream":true`)) {
			t.Fatalf("turn %d: input tokens %d streamed, %d not", turn, got.Usage.InputTokens, want.Usage.InputTokens)
		}
		got.Usage.InputTokens = want.Usage.InputTokens
		norm := func(m anthropic.Message) string {
			var blocks []map[string]any
			for _, b := range m.Content {
				var x map[string]any
				_ = json.Unmarshal([]byte(b.RawJSON()), &x)
				if b.Type == "tool_use" {
					var in any
					_ = json.Unmarshal(b.Input, &in)
					x = map[string]any{"type": b.Type, "id": b.ID, "name": b.Name, "input": in}
				}
				blocks = append(blocks, x)
			}
			out, _ := json.Marshal(map[string]any{"id": m.ID, "model": m.Model, "role": m.Role, "stop_reason": m.StopReason,
				"content": blocks, "usage": []int64{m.Usage.InputTokens, m.Usage.OutputTokens, m.Usage.CacheCreationInputTokens, m.Usage.CacheReadInputTokens}})
			return string(out)
		}
		if d := cmp.Diff(norm(*want), norm(got)); d != "" {
			t.Fatalf("turn %d: streamed message differs (-want +got):\n%s", turn, d)
		}
		for _, b := range want.Content {
			if b.Name == "submit_result" {
				return // the agent would stop here
			}
		}
		params.Messages = append(params.Messages, want.ToParam())
		var results []anthropic.ContentBlockParamUnion
		for _, b := range want.Content {
			if b.Type == "tool_use" {
				results = append(results, anthropic.NewToolResultBlock(b.ID, "ok: done", false))
			}
		}
		params.Messages = append(params.Messages, anthropic.NewUserMessage(results...))
	}
	t.Fatal("the conversation did not end")
}
