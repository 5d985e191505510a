package gateway

import (
	"fmt"
	"sort"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/strictjson"
)

// Price is what one model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheWrite float64 `json:"cache_write"`
	CacheRead  float64 `json:"cache_read"`
}

// Pricing maps a model id (or an id prefix, e.g. "claude-sonnet-4-5" for
// "claude-sonnet-4-5-20250929") to its price.
type Pricing map[string]Price

// Usage is the token count of one Messages answer, as Anthropic reports it.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// DefaultPricing is Anthropic's list price of the models reviewers use.
func DefaultPricing() Pricing {
	return Pricing{
		"claude-opus-4-5":   {Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.50},
		"claude-opus-4-1":   {Input: 15, Output: 75, CacheWrite: 18.75, CacheRead: 1.50},
		"claude-opus-4":     {Input: 15, Output: 75, CacheWrite: 18.75, CacheRead: 1.50},
		"claude-sonnet-4-5": {Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.30},
		"claude-sonnet-4":   {Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.30},
		"claude-haiku-4-5":  {Input: 1, Output: 5, CacheWrite: 1.25, CacheRead: 0.10},
		"claude-3-5-haiku":  {Input: 0.80, Output: 4, CacheWrite: 1, CacheRead: 0.08},
	}
}

// ParsePricing reads a JSON object of model → price, e.g.
// {"claude-sonnet-4-5": {"input": 3, "output": 15, "cache_write": 3.75, "cache_read": 0.3}}.
// Prices must be finite and not negative.
func ParsePricing(b []byte) (Pricing, error) {
	var p Pricing
	if err := strictjson.Decode(b, &p); err != nil {
		return nil, fmt.Errorf("model pricing: %w", err)
	}
	for m, pr := range p {
		for _, v := range []float64{pr.Input, pr.Output, pr.CacheWrite, pr.CacheRead} {
			if v < 0 || v != v || v > 1e6 {
				return nil, fmt.Errorf("model pricing: %s: prices must be between 0 and 1e6 per MTok", m)
			}
		}
	}
	return p, nil
}

// Lookup returns the price of model: an exact entry, else the longest entry
// that is a prefix of model at a "-" boundary.
func (p Pricing) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		if k != "" && strings.HasPrefix(model, k+"-") {
			return p[k], true
		}
	}
	return Price{}, false
}

// Cost is the price of u in US dollars.
func (pr Price) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*pr.Input +
		float64(u.OutputTokens)*pr.Output +
		float64(u.CacheCreationInputTokens)*pr.CacheWrite +
		float64(u.CacheReadInputTokens)*pr.CacheRead) / 1e6
}
