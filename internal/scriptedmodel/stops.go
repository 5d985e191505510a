package scriptedmodel

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/textcut"
)

// How the scripted model thinks and stops, like a real model does:
//
//   - Thinking (Config.Thinking): adaptive-thinking models open an answer
//     with a thinking block carrying a signature; a client must send it back
//     unaltered in the next request of a tool-use loop, and the API refuses
//     a block whose signature does not match (docs "Extended thinking",
//     Preserving thinking blocks). Thinking tokens are output tokens and
//     count against max_tokens (REALITY.md, Sonnet 5 migration guide).
//   - max_tokens (Config.StopAtMaxTokens): an answer that does not fit the
//     request's max_tokens ends with stop_reason "max_tokens"; a tool call
//     cut in the middle is incomplete and the client should ask again with a
//     higher max_tokens (docs "Stop reasons and fallback").
//   - refusal (Config.RefuseAt): the model declines and answers
//     stop_reason "refusal" (docs "Stop reasons and fallback"; REALITY.md:
//     Fable-class models may answer 200 with it).

// thinkingSecret keys the scripted signatures; a real signature is opaque.
const thinkingSecret = "chakshu-scripted-thinking"

func signThinking(t string) string {
	sum := sha256.Sum256([]byte(thinkingSecret + t))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// think prepends a thinking block to content when Config.Thinking is on.
func (m *model) think(c *conversation, content []outItem) []outItem {
	if !m.cfg.Thinking || len(content) == 0 {
		return content
	}
	n := m.cfg.ThinkingTokens
	if n <= 0 {
		n = 200
	}
	var b strings.Builder
	for i := 0; b.Len() < 4*n; i++ {
		fmt.Fprintf(&b, "Step %d of turn %d: weigh what the change touches before answering. ", i+1, c.assistant+1)
	}
	t := b.String()[:4*n]
	return append([]outItem{{Type: "thinking", Thinking: t, Signature: signThinking(t)}}, content...)
}

// checkThinking refuses a request that sends back a thinking block whose
// signature is not the one it was given (the API's answer to an edited or
// forged thinking block).
func (m *model) checkThinking(c *conversation) error {
	for i, msg := range c.req.Messages {
		if msg.Role != "assistant" {
			continue
		}
		bs, err := blocks(msg.Content)
		if err != nil {
			continue // parse already checked the content
		}
		for j, b := range bs {
			if b.Type == "thinking" && b.Signature != signThinking(b.Thinking) {
				return fmt.Errorf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
			}
		}
	}
	return nil
}

// stop decides the answer's stop_reason and cuts it at max_tokens.
func (m *model) stop(c *conversation, content []outItem) ([]outItem, string) {
	if m.cfg.RefuseAt > 0 && c.assistant+1 == m.cfg.RefuseAt {
		return []outItem{}, "refusal"
	}
	reason := "end_turn"
	if slices.ContainsFunc(content, func(o outItem) bool { return o.Type == "tool_use" }) {
		reason = "tool_use"
	}
	if !m.cfg.StopAtMaxTokens {
		return content, reason
	}
	all, _ := json.Marshal(content)
	if tokens(len(all))+10 <= int64(c.req.MaxTokens) {
		return content, reason
	}
	// About four bytes a token (tokens), less the 10 tokens of overhead usage adds.
	room := max(4*(c.req.MaxTokens-10), 0)
	var kept []outItem
	for _, it := range content {
		b, _ := json.Marshal(it)
		if len(b) <= room {
			kept = append(kept, it)
			room -= len(b)
			continue
		}
		// The block is cut inside its content: its text loses what does not
		// fit after its JSON frame (at least one byte goes).
		switch it.Type {
		case "thinking":
			it.Thinking = textcut.Bytes(it.Thinking, min(room-(len(b)-len(it.Thinking)), len(it.Thinking)-1))
			it.Signature = signThinking(it.Thinking)
		case "text":
			it.Text = textcut.Bytes(it.Text, min(room-(len(b)-len(it.Text)), len(it.Text)-1))
		case "tool_use":
			// Of a tool call's input cut in its first object, nothing
			// complete parses: the block keeps an empty input.
			it.Input = json.RawMessage(`{}`)
		}
		kept = append(kept, it)
		break
	}
	return kept, "max_tokens"
}
