package models

import (
	"errors"
	"strings"
	"testing"
)

const routedCatalog = `{"models": [
 {"id": "claude-sonnet-5-5", "provider": "anthropic",
  "price": {"input": 2, "output": 10, "cache_write_5m": 2.5, "cache_write_1h": 4, "cache_read": 0.1},
  "tiers": [{"above_prompt_tokens": 200000, "price": {"input": 4, "output": 20}}],
  "forced_tool_choice": false, "lifecycle": {"status": "active"},
  "providers": {"bedrock": {"model": "global.anthropic.claude-sonnet-5-5-v1:0", "price": {"input": 2.2, "output": 11}},
                "vertex": {"model": "claude-sonnet-5-5@20261001"}}},
 {"id": "local-coder", "provider": "openai", "price": {"input": 0, "output": 0},
  "forced_tool_choice": false, "lifecycle": {"status": "active"},
  "providers": {"openai": {"model": "qwen3-coder:30b"}}}
]}`

func TestServeRoutes(t *testing.T) {
	c, err := Parse([]byte(routedCatalog), "test")
	if err != nil {
		t.Fatal(err)
	}
	sonnet, _ := c.Lookup("claude-sonnet-5-5")
	local, _ := c.Lookup("local-coder")
	cases := []struct {
		name, platform  string
		e               *Entry
		provider, model string
		input           float64
		tiers           int
		notOffered      bool
	}{
		{"anthropic by default", "", sonnet, "anthropic", "claude-sonnet-5-5", 2, 1, false},
		{"anthropic named", "anthropic", sonnet, "anthropic", "claude-sonnet-5-5", 2, 1, false},
		{"bedrock with its own price", "bedrock", sonnet, "bedrock", "global.anthropic.claude-sonnet-5-5-v1:0", 2.2, 0, false},
		{"vertex at the entry's price", "vertex", sonnet, "vertex", "claude-sonnet-5-5@20261001", 2, 1, false},
		{"foundry not listed", "foundry", sonnet, "", "", 0, 0, true},
		{"a local model keeps its provider", "bedrock", local, "openai", "qwen3-coder:30b", 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.e.Serve(tc.platform)
			if tc.notOffered {
				if !errors.Is(err, ErrNotOffered) || !strings.Contains(err.Error(), `"foundry"`) || !strings.Contains(err.Error(), Setting) {
					t.Fatalf("Serve = %+v, %v; want ErrNotOffered naming the fix", s, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Provider != tc.provider || s.Model != tc.model || s.Entry.Price.Input != tc.input || len(s.Entry.Tiers) != tc.tiers {
				t.Errorf("Serve = %s %s input %v tiers %d", s.Provider, s.Model, s.Entry.Price.Input, len(s.Entry.Tiers))
			}
		})
	}
	// The route's price meters: 1M input tokens on Bedrock cost $2.20, not $2.
	s, _ := sonnet.Serve("bedrock")
	if got := s.Entry.Cost(Usage{InputTokens: 1_000_000}); got != 2.2 {
		t.Errorf("bedrock cost = %v, want 2.2", got)
	}
	if sonnet.Price.Input != 2 {
		t.Error("Serve changed the catalogue's entry")
	}
}

func TestRoutesValidated(t *testing.T) {
	cases := map[string]string{
		"unknown provider":       `{"models": [{"id": "m", "provider": "anthropic", "price": {"input": 1}, "forced_tool_choice": false, "lifecycle": {"status": "active"}, "providers": {"azure": {"model": "x"}}}]}`,
		"empty model":            `{"models": [{"id": "m", "provider": "anthropic", "price": {"input": 1}, "forced_tool_choice": false, "lifecycle": {"status": "active"}, "providers": {"bedrock": {"model": ""}}}]}`,
		"negative price":         `{"models": [{"id": "m", "provider": "anthropic", "price": {"input": 1}, "forced_tool_choice": false, "lifecycle": {"status": "active"}, "providers": {"bedrock": {"model": "x", "price": {"input": -1}}}}]}`,
		"unknown entry provider": `{"models": [{"id": "m", "provider": "azure", "price": {"input": 1}, "forced_tool_choice": false, "lifecycle": {"status": "active"}}]}`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(src), "test"); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	ok := `{"models": [{"id": "m", "provider": "vertex", "price": {"input": 1}, "forced_tool_choice": false, "lifecycle": {"status": "active"}, "providers": {"bedrock": {"model": "x", "price": {"input": 0}}}}]}`
	if _, err := Parse([]byte(ok), "test"); err != nil {
		t.Fatalf("a zero price and a non-Anthropic provider are refused: %v", err)
	}
}

func TestWithRoutes(t *testing.T) {
	c, err := Parse([]byte(routedCatalog), "test")
	if err != nil {
		t.Fatal(err)
	}
	c2, err := c.WithRoutes("foundry", map[string]Route{"claude-sonnet-5-5": {Model: "sonnet-deployment"}})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := c2.Lookup("claude-sonnet-5-5")
	if s, err := e.Serve("foundry"); err != nil || s.Model != "sonnet-deployment" {
		t.Fatalf("Serve(foundry) = %+v, %v", s, err)
	}
	if s, err := e.Serve("bedrock"); err != nil || s.Model != "global.anthropic.claude-sonnet-5-5-v1:0" {
		t.Fatalf("the other routes stay: %+v, %v", s, err)
	}
	orig, _ := c.Lookup("claude-sonnet-5-5")
	if _, ok := orig.Routes["foundry"]; ok {
		t.Error("WithRoutes changed the catalogue it was given")
	}
	if _, err := c.WithRoutes("foundry", map[string]Route{"nope": {Model: "x"}}); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := c.WithRoutes("azure", nil); err == nil {
		t.Error("unknown provider accepted")
	}
}
