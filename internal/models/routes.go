package models

import (
	"fmt"
	"strings"
)

// Route is how one provider names and prices a catalogue model.
type Route struct {
	// Model is the provider's id: a Bedrock model or inference profile id
	// ("anthropic.claude-…-v1:0", "global.anthropic.…", an inference profile
	// ARN), a Vertex publisher model ("claude-…@20250929"), a Foundry
	// deployment, or an OpenAI-compatible server's model name.
	Model string `json:"model"`
	// Price replaces the entry's price on this provider; nil keeps it. A
	// local model may cost 0 and is still capped by its tokens (the run's
	// turn and token limits).
	Price *Price `json:"price,omitempty"`
}

func (e *Entry) validateRoutes() error {
	for p, r := range e.Routes {
		if !providers[p] {
			return fmt.Errorf("%s: providers: %q is not a provider Chakshu knows (%s)", e.ID, p, strings.Join(Providers, ", "))
		}
		if strings.TrimSpace(r.Model) == "" || strings.TrimSpace(r.Model) != r.Model {
			return fmt.Errorf("%s: providers.%s: model is empty or has spaces", e.ID, p)
		}
		if r.Price != nil {
			if err := r.Price.validate(); err != nil {
				return fmt.Errorf("%s: providers.%s: %w", e.ID, p, err)
			}
		}
	}
	return nil
}

// Served is where a run's model goes: the provider, the id that provider
// knows the model by, and the entry priced as that provider charges.
type Served struct {
	Provider string
	Model    string
	Entry    *Entry
}

// ErrNotOffered is wrapped by Serve's error for a model the chosen provider
// does not serve according to the catalogue.
var ErrNotOffered = fmt.Errorf("model not offered by the provider")

// Serve says where e is sent when the deployment sends Anthropic's models
// through platform (CHAKSHU_MODEL_PROVIDER; "" means Anthropic's API): a
// model whose own provider is Anthropic goes through platform and must name
// its id there (Routes); any other model goes to its own provider.
func (e *Entry) Serve(platform string) (Served, error) {
	p := e.Provider
	if p == ProviderAnthropic && platform != "" {
		p = platform
	}
	r, ok := e.Routes[p]
	if !ok {
		if p != e.Provider {
			return Served{}, fmt.Errorf("%w: %q has no %s id in the model catalogue; add \"providers\": {%q: {\"model\": \"…\"}} to its entry in the file named by %s (see README, Model providers)",
				ErrNotOffered, e.ID, p, p, Setting)
		}
		r = Route{Model: e.ID}
	}
	priced := e
	if r.Price != nil {
		clone := *e
		clone.Price, clone.Tiers = r.Price, nil
		priced = &clone
	}
	return Served{Provider: p, Model: r.Model, Entry: priced}, nil
}

// WithRoutes returns c with routes added to the entries they name (by id or
// alias), replacing a route of the same provider; ids c does not know are
// an error.
func (c *Catalog) WithRoutes(provider string, routes map[string]Route) (*Catalog, error) {
	if !providers[provider] {
		return nil, fmt.Errorf("provider %q is not one Chakshu knows", provider)
	}
	out := &Catalog{byID: map[string]*Entry{}, Origin: c.Origin}
	changed := map[*Entry]*Entry{}
	for id, r := range routes {
		e, err := c.Lookup(id)
		if err != nil {
			return nil, err
		}
		clone, ok := changed[e]
		if !ok {
			cp := *e
			cp.Routes = map[string]Route{}
			for k, v := range e.Routes {
				cp.Routes[k] = v
			}
			clone, changed[e] = &cp, &cp
		}
		clone.Routes[provider] = r
		if err := clone.validateRoutes(); err != nil {
			return nil, err
		}
	}
	for _, e := range c.entries {
		if cp, ok := changed[e]; ok {
			e = cp
		}
		if err := out.insert(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
