package models

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestBuiltinExactIDs(t *testing.T) {
	c := Builtin()
	cases := []struct {
		id    string
		input float64
		known bool
	}{
		{"claude-opus-4-6", 5, true}, // was $15 by the claude-opus-4 prefix
		{"claude-opus-4-7", 5, true},
		{"claude-opus-4-8", 5, true},
		{"claude-sonnet-5-5", 2, true},
		{"claude-haiku-4-5", 1, true}, // documented alias
		{"claude-haiku-4-5-20251001", 1, true},
		{"claude-opus-4-1", 15, true},
		{"claude-opus-4-6-20990101", 0, false}, // no prefix guessing
		{"claude-opus-4", 0, false},
		{"claude-sonnet", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			e, err := c.Lookup(tc.id)
			if !tc.known {
				if !errors.Is(err, ErrUnknown) {
					t.Fatalf("Lookup = %v, %v; want ErrUnknown", e, err)
				}
				if !strings.Contains(err.Error(), "built-in model catalogue") || !strings.Contains(err.Error(), Setting) {
					t.Errorf("message %q does not name the catalogue and how to extend it", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Price.Input != tc.input || e.Provider != ProviderAnthropic {
				t.Errorf("%s: input %v provider %q", tc.id, e.Price.Input, e.Provider)
			}
		})
	}
}

func TestBuiltinEveryFactHasASource(t *testing.T) {
	for _, e := range Builtin().Entries() {
		for _, k := range []string{"lifecycle"} {
			if e.Source[k] == "" {
				t.Errorf("%s: no source for %s", e.ID, k)
			}
		}
		if e.Price != nil && e.Source["price"] == "" {
			t.Errorf("%s: price without a source", e.ID)
		}
		if e.ContextWindow > 0 && (e.Source["limits"] == "" || e.Source["capabilities"] == "" || e.Source["min_cache_tokens"] == "") {
			t.Errorf("%s: limits or capabilities without a source", e.ID)
		}
		if e.Price != nil && e.StatusAt(day("2026-12-01")).State != "retired" && e.Price.CacheWrite1h < e.Price.CacheWrite5m {
			t.Errorf("%s: 1 h write cheaper than 5 m", e.ID)
		}
	}
}

func TestLifecycle(t *testing.T) {
	c := Builtin()
	cases := []struct {
		id, at, state string
		warn          bool
	}{
		{"claude-sonnet-4-5", "2026-11-29", "deprecated", true},
		{"claude-sonnet-4-5", "2026-11-30", "retired", false}, // end of life on 2026-11-30 (SDK)
		{"claude-opus-4-5", "2026-11-22", "deprecated", false},
		{"claude-opus-4-5", "2026-11-23", "deprecated", true}, // 60 days before 2027-01-22
		{"claude-opus-4-5", "2027-01-22", "retired", false},
		{"claude-sonnet-5-5", "2026-12-01", "active", false},
		{"claude-opus-4-1", "2026-12-01", "retired", false},
	}
	for _, tc := range cases {
		t.Run(tc.id+"@"+tc.at, func(t *testing.T) {
			e, err := c.Lookup(tc.id)
			if err != nil {
				t.Fatal(err)
			}
			st := e.StatusAt(day(tc.at))
			if st.State != tc.state || st.Warn != tc.warn {
				t.Errorf("status = %+v, want %s warn=%v", st, tc.state, tc.warn)
			}
		})
	}
	if _, _, err := c.Check("claude-sonnet-4-5", day("2026-12-01")); err == nil || !strings.Contains(err.Error(), "claude-sonnet-5-5") || !strings.Contains(err.Error(), "reviewer.yaml") {
		t.Errorf("Check(retired) = %v; want an error naming the replacement and the fix", err)
	}
	if _, st, err := c.Check("claude-opus-4-5", day("2026-12-01")); err != nil || st.Sentence() != "deprecated until 2027-01-22; use claude-opus-5-5" {
		t.Errorf("Check(deprecated) = %q, %v", st.Sentence(), err)
	}
}

func TestCost(t *testing.T) {
	c := Builtin()
	son, _ := c.Lookup("claude-sonnet-5-5")
	u := Usage{InputTokens: 1e6, OutputTokens: 1e6, CacheCreationInputTokens: 3e6, CacheReadInputTokens: 1e6,
		CacheCreation: &CacheCreation{Ephemeral5m: 2e6, Ephemeral1h: 1e6}}
	// 2 + 10 + 2×2.5 + 1×4 + 0.10
	if got, want := son.Cost(u), 21.10; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost = %v, want %v", got, want)
	}
	// No split: every write is a 5-minute one.
	u.CacheCreation = nil
	if got, want := son.Cost(u), 2+10+3*2.5+0.10; math.Abs(got-want) > 1e-9 {
		t.Errorf("cost without split = %v, want %v", got, want)
	}
	// Haiku 5.5: a prompt of exactly 100,000 tokens is the low band, one more the high band for every token.
	hk, _ := c.Lookup("claude-haiku-5-5")
	low := Usage{InputTokens: 100000, OutputTokens: 1000}
	if got, want := hk.Cost(low), (100000*0.10+1000*0.50)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("haiku at 100000 = %v, want %v", got, want)
	}
	high := Usage{InputTokens: 99999, CacheReadInputTokens: 2, OutputTokens: 1000}
	if got, want := hk.Cost(high), (99999*0.50+2*0.05+1000*2.50)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("haiku at 100001 = %v, want %v", got, want)
	}
}

func TestParseRefuses(t *testing.T) {
	cases := map[string]string{
		"negative price": `{"models":[{"id":"m","provider":"anthropic","price":{"input":-1},"lifecycle":{"status":"active"}}]}`,
		"no price":       `{"models":[{"id":"m","provider":"anthropic","lifecycle":{"status":"active"}}]}`,
		"provider":       `{"models":[{"id":"m","provider":"acme","price":{},"lifecycle":{"status":"active"}}]}`,
		"status":         `{"models":[{"id":"m","provider":"anthropic","price":{},"lifecycle":{"status":"legacy"}}]}`,
		"deprecated":     `{"models":[{"id":"m","provider":"anthropic","price":{},"lifecycle":{"status":"deprecated"}}]}`,
		"date":           `{"models":[{"id":"m","provider":"anthropic","price":{},"lifecycle":{"status":"deprecated","retires_on":"30.11.2026"}}]}`,
		"duplicate":      `{"models":[{"id":"m","provider":"anthropic","price":{},"lifecycle":{"status":"active"}},{"id":"n","aliases":["m"],"provider":"anthropic","price":{},"lifecycle":{"status":"active"}}]}`,
		"unknown field":  `{"models":[{"id":"m","provider":"anthropic","price":{},"lifecycle":{"status":"active"},"prefix":true}]}`,
		"tiers":          `{"models":[{"id":"m","provider":"anthropic","price":{},"tiers":[{"above_prompt_tokens":0,"price":{}}],"lifecycle":{"status":"active"}}]}`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse([]byte(in), "test"); err == nil {
				t.Errorf("Parse accepted %s", in)
			}
		})
	}
}

func TestSourceRereadsTheOperatorFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "models.json")
	write := func(s string, mod time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write(`{"models":[{"id":"my-model","provider":"anthropic","price":{"input":1,"output":2},"lifecycle":{"status":"active"}}]}`, t0)
	src, err := NewSource(path)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := src.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if e, err := cat.Lookup("my-model"); err != nil || e.Price.Output != 2 {
		t.Fatalf("operator model: %v %v", e, err)
	}
	if _, err := cat.Lookup("claude-sonnet-5-5"); err != nil {
		t.Fatalf("built-in models stay: %v", err)
	}
	// An override of a built-in id replaces it; the change is seen without a restart.
	write(`{"models":[{"id":"claude-sonnet-5-5","provider":"anthropic","price":{"input":9,"output":9},"lifecycle":{"status":"active"}}]}`, t0.Add(time.Minute))
	cat, err = src.Catalog()
	if e, _ := cat.Lookup("claude-sonnet-5-5"); err != nil || e.Price.Input != 9 {
		t.Fatalf("override not re-read: %v %v", e, err)
	}
	if _, err := cat.Lookup("my-model"); err == nil {
		t.Errorf("the removed entry is still there")
	}
	// A broken edit keeps the last good catalogue and says why.
	write(`{"models":[`, t0.Add(2*time.Minute))
	cat, err = src.Catalog()
	if err == nil {
		t.Fatal("broken file not reported")
	}
	if e, _ := cat.Lookup("claude-sonnet-5-5"); e == nil || e.Price.Input != 9 {
		t.Errorf("last good catalogue lost: %v", e)
	}
	if _, err := NewSource(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Errorf("a missing file at start is not an error")
	}
}

// The facts checked against Anthropic's pages on 2026-12-02 (catalog.json
// names each page): a change to any of them is deliberate.
func TestBuiltinCheckedFacts(t *testing.T) {
	c := Builtin()
	prices := map[string]Price{
		"claude-opus-5-5":  {Input: 4, Output: 20, CacheWrite5m: 5, CacheWrite1h: 8, CacheRead: 0.20},
		"claude-haiku-5-5": {Input: 0.10, Output: 0.50, CacheWrite5m: 0.125, CacheWrite1h: 0.20, CacheRead: 0.01},
		// Cache read not published: 0.1x input, never metered below cost.
		"claude-fable-5-2": {Input: 8, Output: 40, CacheWrite5m: 10, CacheWrite1h: 16, CacheRead: 0.80},
	}
	for id, want := range prices {
		e, err := c.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if *e.Price != want {
			t.Errorf("%s: price %+v, want %+v", id, *e.Price, want)
		}
	}
	haiku, _ := c.Lookup("claude-haiku-5-5")
	if p := haiku.PriceFor(100_000); p.Input != 0.10 {
		t.Errorf("Haiku 5.5 at 100,000 prompt tokens: input %v, want 0.10", p.Input)
	}
	if p := haiku.PriceFor(100_001); p.Input != 0.50 || p.Output != 2.50 || p.CacheWrite5m != 0.625 {
		t.Errorf("Haiku 5.5 over 100,000 prompt tokens: %+v", p)
	}
	for _, id := range []string{"claude-opus-4-6", "claude-opus-4-8", "claude-sonnet-4-6", "claude-opus-5-5"} {
		if e, _ := c.Lookup(id); e.ContextWindow != 1_000_000 || e.MaxOutput != 128_000 {
			t.Errorf("%s: context %d, max output %d; want 1M and 128K", id, e.ContextWindow, e.MaxOutput)
		}
	}
	if e, _ := c.Lookup("claude-opus-5-5"); e.ForcedToolChoice {
		t.Error("Opus 5.5 answers forced tool use with an error")
	}
	if _, err := c.Lookup("claude-mythos-5-2"); !errors.Is(err, ErrUnknown) {
		t.Errorf("claude-mythos-5-2 has no published price, want it refused: %v", err)
	}
}
