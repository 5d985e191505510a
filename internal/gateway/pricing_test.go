package gateway

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPricingLookup(t *testing.T) {
	p := DefaultPricing()
	for _, c := range []struct {
		name, model string
		want        Price
		ok          bool
	}{
		{"exact", "claude-sonnet-4-5", p["claude-sonnet-4-5"], true},
		{"dated id", "claude-sonnet-4-5-20250929", p["claude-sonnet-4-5"], true},
		{"longest prefix wins", "claude-opus-4-1-20250805", p["claude-opus-4-1"], true},
		{"shorter family", "claude-sonnet-4-20250514", p["claude-sonnet-4"], true},
		{"no boundary", "claude-sonnet-4x", Price{}, false},
		{"unknown", "gpt-4", Price{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := p.Lookup(c.model)
			if ok != c.ok || got != c.want {
				t.Fatalf("Lookup(%q) = %v %v, want %v %v", c.model, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestPriceCost(t *testing.T) {
	pr := Price{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3}
	got := pr.Cost(Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheCreationInputTokens: 200_000, CacheReadInputTokens: 1_000_000})
	if want := 3 + 1.5 + 0.75 + 0.3; got-want > 1e-9 || want-got > 1e-9 {
		t.Fatalf("cost %v, want %v", got, want)
	}
}

func TestParsePricing(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     Pricing
		bad      bool
	}{
		{"one model", `{"m":{"input":1,"output":2,"cache_write":3,"cache_read":0.5}}`, Pricing{"m": {1, 2, 3, 0.5}}, false},
		{"unknown key", `{"m":{"inptu":1}}`, nil, true},
		{"negative", `{"m":{"input":-1}}`, nil, true},
		{"not json", `m=1`, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParsePricing([]byte(c.in))
			if (err != nil) != c.bad {
				t.Fatalf("err = %v, want bad=%v", err, c.bad)
			}
			if d := cmp.Diff(c.want, got); !c.bad && d != "" {
				t.Fatal(d)
			}
		})
	}
}
