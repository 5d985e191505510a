// Package models is Chakshu's model catalogue (DESIGN §7, Models): for each
// model id its provider, exact prices, limits, the capabilities the agent
// relies on and its lifecycle. The catalogue ships with the binary
// (catalog.json, each fact naming its source) and an operator file
// (CHAKSHU_MODEL_CATALOG) adds or replaces entries by id; the file is
// re-read when it changes, without a restart. Ids are matched exactly
// (ids and their documented aliases): there is no prefix guessing, so a
// model the catalogue does not know is refused, never priced like a
// neighbour.
package models

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/internal/strictjson"
)

//go:embed catalog.json
var builtinJSON []byte

// Setting is the environment variable naming the operator's catalogue file.
const Setting = "CHAKSHU_MODEL_CATALOG"

// WarnBefore is how long before its retirement a deprecated model warns:
// Anthropic gives at least 60 days' notice (model deprecations page).
const WarnBefore = 60 * 24 * time.Hour

// Providers the catalogue knows (DESIGN §7, Models): Anthropic's API, the
// cloud platforms that serve Anthropic's models with the Messages API
// (Amazon Bedrock, Google Vertex AI, Microsoft Foundry) and any
// OpenAI-compatible Chat Completions endpoint (vLLM, Ollama, LiteLLM, Azure
// OpenAI).
const (
	ProviderAnthropic = "anthropic"
	ProviderBedrock   = "bedrock"
	ProviderVertex    = "vertex"
	ProviderFoundry   = "foundry"
	ProviderOpenAI    = "openai"
)

// Providers lists the provider names, in the order people read them.
var Providers = []string{ProviderAnthropic, ProviderBedrock, ProviderVertex, ProviderFoundry, ProviderOpenAI}

var providers = map[string]bool{ProviderAnthropic: true, ProviderBedrock: true, ProviderVertex: true, ProviderFoundry: true, ProviderOpenAI: true}

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite5m float64 `json:"cache_write_5m"`
	CacheWrite1h float64 `json:"cache_write_1h"`
	CacheRead    float64 `json:"cache_read"`
}

// Tier is a price that applies to a whole request once its prompt (input,
// cache reads and cache writes) is longer than AbovePromptTokens.
type Tier struct {
	AbovePromptTokens int64 `json:"above_prompt_tokens"`
	Price             Price `json:"price"`
}

// Lifecycle is where a model is in Anthropic's lifecycle.
type Lifecycle struct {
	// Status is "active", "deprecated" or "retired"; a deprecated model is
	// retired from RetiresOn on.
	Status string `json:"status"`
	// RetiresOn is the retirement date (YYYY-MM-DD, UTC) of a deprecated model.
	RetiresOn string `json:"retires_on,omitempty"`
	// Replacement is the suggested model id.
	Replacement string `json:"replacement,omitempty"`
}

// Entry is one model.
type Entry struct {
	ID       string   `json:"id"`
	Aliases  []string `json:"aliases,omitempty"`
	Provider string   `json:"provider"`
	Name     string   `json:"name,omitempty"`
	// Price is nil for a retired model whose price is no longer published.
	Price *Price `json:"price,omitempty"`
	// Tiers are longer-prompt prices, lowest threshold first.
	Tiers []Tier `json:"tiers,omitempty"`
	// USOnlyMultiplier is what US-only inference (inference_geo "us")
	// multiplies every price by; 0 when the model does not take
	// inference_geo (models before Claude Opus 4.6 answer it 400; docs
	// "Data residency"), whose requests then cannot ask for it. The 1.1x is
	// Anthropic's pricing page and, in so many words, AWS's guide to the
	// Claude Platform ("Data residency": "US: … A 1.1x pricing multiplier
	// applies"; docs.aws.amazon.com/claude-platform/latest/userguide).
	USOnlyMultiplier float64 `json:"us_only_multiplier,omitempty"`
	ContextWindow    int64   `json:"context_window,omitempty"`
	MaxOutput        int64   `json:"max_output,omitempty"`
	// MinCacheTokens is the shortest prefix the model caches.
	MinCacheTokens int64 `json:"min_cache_tokens,omitempty"`
	// ForcedToolChoice says whether tool_choice {type: tool} is accepted.
	ForcedToolChoice bool `json:"forced_tool_choice"`
	// Thinking is "extended", "adaptive" or "adaptive_always".
	Thinking  string    `json:"thinking,omitempty"`
	Lifecycle Lifecycle `json:"lifecycle"`
	// Source names, per fact, where it was read (keys of the catalogue's sources).
	Source map[string]string `json:"source,omitempty"`
	// Routes name the model on other providers that serve it (Bedrock's
	// model or inference profile id, Vertex's publisher model id, a Foundry
	// deployment, an OpenAI-compatible server's model name), with that
	// provider's price when it differs.
	Routes map[string]Route `json:"providers,omitempty"`

	retires time.Time
}

type file struct {
	Sources map[string]string `json:"sources,omitempty"`
	Models  []Entry           `json:"models"`
}

// Catalog is a parsed catalogue.
type Catalog struct {
	byID    map[string]*Entry // ids and aliases
	entries []*Entry
	// Origin names where the catalogue came from, for messages.
	Origin string
}

// Builtin is the catalogue shipped with the binary (parsed once; read only).
var Builtin = sync.OnceValue(func() *Catalog {
	c, err := Parse(builtinJSON, "the built-in model catalogue")
	if err != nil {
		panic("models: built-in catalogue: " + err.Error()) // a test pins it
	}
	return c
})

// Parse reads a catalogue file.
func Parse(b []byte, origin string) (*Catalog, error) {
	var f file
	if err := strictjson.Decode(b, &f); err != nil {
		return nil, fmt.Errorf("model catalogue %s: %w", origin, err)
	}
	c := &Catalog{byID: map[string]*Entry{}, Origin: origin}
	for i := range f.Models {
		if err := c.add(&f.Models[i]); err != nil {
			return nil, fmt.Errorf("model catalogue %s: %w", origin, err)
		}
	}
	return c, nil
}

func (c *Catalog) add(e *Entry) error {
	if err := e.validate(); err != nil {
		return err
	}
	return c.insert(e)
}

// insert adds a validated entry.
func (c *Catalog) insert(e *Entry) error {
	for _, id := range append([]string{e.ID}, e.Aliases...) {
		if _, dup := c.byID[id]; dup {
			return fmt.Errorf("%s: model id %q appears twice", e.ID, id)
		}
		c.byID[id] = e
	}
	c.entries = append(c.entries, e)
	return nil
}

func (p *Price) validate() error {
	for _, v := range []float64{p.Input, p.Output, p.CacheWrite5m, p.CacheWrite1h, p.CacheRead} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || v > 1e6 {
			return errors.New("prices must be between 0 and 1e6 US dollars per million tokens")
		}
	}
	return nil
}

func (e *Entry) validate() error {
	if e.ID == "" || strings.TrimSpace(e.ID) != e.ID {
		return fmt.Errorf("an entry has no id (or one with spaces)")
	}
	if !providers[e.Provider] {
		return fmt.Errorf("%s: provider %q is not one Chakshu knows (%s)", e.ID, e.Provider, strings.Join(Providers, ", "))
	}
	if err := e.validateRoutes(); err != nil {
		return err
	}
	switch e.Lifecycle.Status {
	case "active", "deprecated", "retired":
	default:
		return fmt.Errorf("%s: lifecycle status %q is not active, deprecated or retired", e.ID, e.Lifecycle.Status)
	}
	if e.Lifecycle.RetiresOn != "" {
		t, err := time.Parse(time.DateOnly, e.Lifecycle.RetiresOn)
		if err != nil {
			return fmt.Errorf("%s: retires_on %q is not a YYYY-MM-DD date", e.ID, e.Lifecycle.RetiresOn)
		}
		e.retires = t
	}
	if e.Lifecycle.Status == "deprecated" && e.retires.IsZero() {
		return fmt.Errorf("%s: a deprecated model needs retires_on", e.ID)
	}
	if e.Price == nil && e.Lifecycle.Status != "retired" && e.retires.IsZero() {
		return fmt.Errorf("%s: a model in use needs a price", e.ID)
	}
	if e.Price != nil {
		if err := e.Price.validate(); err != nil {
			return fmt.Errorf("%s: %w", e.ID, err)
		}
	}
	for i, t := range e.Tiers {
		if t.AbovePromptTokens <= 0 || (i > 0 && t.AbovePromptTokens <= e.Tiers[i-1].AbovePromptTokens) {
			return fmt.Errorf("%s: tiers need rising positive above_prompt_tokens", e.ID)
		}
		if err := t.Price.validate(); err != nil {
			return fmt.Errorf("%s: tier: %w", e.ID, err)
		}
	}
	for _, n := range []int64{e.ContextWindow, e.MaxOutput, e.MinCacheTokens} {
		if n < 0 {
			return fmt.Errorf("%s: limits cannot be negative", e.ID)
		}
	}
	return nil
}

// Merge returns c with the entries of over added, replacing c's entries of
// the same id (an operator file adds or corrects models).
func (c *Catalog) Merge(over *Catalog) *Catalog {
	out := &Catalog{byID: map[string]*Entry{}, Origin: c.Origin + " with " + over.Origin}
	for _, e := range over.entries {
		_ = out.add(e) // valid in over
	}
	for _, e := range c.entries {
		if _, taken := out.byID[e.ID]; taken {
			continue
		}
		clone := *e
		clone.Aliases = nil
		for _, a := range e.Aliases {
			if _, taken := out.byID[a]; !taken {
				clone.Aliases = append(clone.Aliases, a)
			}
		}
		_ = out.add(&clone)
	}
	return out
}

// Entries lists the catalogue by id.
func (c *Catalog) Entries() []*Entry {
	out := append([]*Entry(nil), c.entries...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ErrUnknown is wrapped by Lookup's error for an id the catalogue lacks.
var ErrUnknown = errors.New("unknown model")

// Lookup returns the entry of id (an exact id or a documented alias).
func (c *Catalog) Lookup(id string) (*Entry, error) {
	if e, ok := c.byID[id]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("%w %q: it is not in %s; use a model id listed there, or add an entry for it to the file named by %s (see README, Models)",
		ErrUnknown, id, c.Origin, Setting)
}

// Status is a model's lifecycle state at a moment.
type Status struct {
	// State is "active", "deprecated" or "retired".
	State string
	// RetiresOn is the retirement date, zero when none is set.
	RetiresOn time.Time
	// Replacement is the suggested model id.
	Replacement string
	// Warn says a deprecated model is within WarnBefore of retiring.
	Warn bool
}

// StatusAt is e's lifecycle at now: a deprecated model is retired from its
// retirement date on.
func (e *Entry) StatusAt(now time.Time) Status {
	s := Status{State: e.Lifecycle.Status, RetiresOn: e.retires, Replacement: e.Lifecycle.Replacement}
	if !e.retires.IsZero() && !now.Before(e.retires) {
		s.State = "retired"
	}
	if s.State == "deprecated" && !now.Before(e.retires.Add(-WarnBefore)) {
		s.Warn = true
	}
	return s
}

// Sentence says s for people, e.g. "deprecated until 2027-01-22; use claude-opus-5-5".
func (s Status) Sentence() string {
	var b strings.Builder
	b.WriteString(s.State)
	if s.State == "deprecated" && !s.RetiresOn.IsZero() {
		b.WriteString(" until " + s.RetiresOn.Format(time.DateOnly))
	}
	if s.State == "retired" && !s.RetiresOn.IsZero() {
		b.WriteString(" since " + s.RetiresOn.Format(time.DateOnly))
	}
	if s.State != "active" && s.Replacement != "" {
		b.WriteString("; use " + s.Replacement)
	}
	return b.String()
}

// Check is the use-time check of a model id: the entry, or an error for an
// unknown or retired model (the error says how to fix it).
func (c *Catalog) Check(id string, now time.Time) (*Entry, Status, error) {
	e, err := c.Lookup(id)
	if err != nil {
		return nil, Status{}, err
	}
	st := e.StatusAt(now)
	if st.State == "retired" {
		return e, st, fmt.Errorf("model %q is retired (%s); set model: in reviewer.yaml to an active model", id, st.Sentence())
	}
	if e.Price == nil {
		return e, st, fmt.Errorf("model %q has no price in %s; add one to the file named by %s", id, c.Origin, Setting)
	}
	return e, st, nil
}

// PriceFor is the price of a request whose prompt (input + cache reads +
// cache writes) is promptTokens long: the highest tier it passes, else the
// base price.
func (e *Entry) PriceFor(promptTokens int64) Price {
	p := Price{}
	if e.Price != nil {
		p = *e.Price
	}
	for _, t := range e.Tiers {
		if promptTokens > t.AbovePromptTokens {
			p = t.Price
		}
	}
	return p
}

// PriceJSON is e's prices as stored on a run (the run records what it was
// metered at): the base price's fields, with the tiers when there are any.
func (e *Entry) PriceJSON() string {
	if e.Price == nil {
		return ""
	}
	v := struct {
		Price
		Tiers []Tier `json:"tiers,omitempty"`
	}{*e.Price, e.Tiers}
	b, _ := json.Marshal(v)
	return string(b)
}
