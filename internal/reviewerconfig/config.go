// Package reviewerconfig holds reviewer configuration (DESIGN §7): parsing
// reviewer.yaml and a repository's .github/chakshu.yml, syncing reviewers
// from the reviewers repository (and recording a request for a sync, which
// worker.ReviewerSync performs), and picking the reviewers a trigger runs.
// Review learnings are package learnings; requesting a review is package
// reviewrequest.
package reviewerconfig

import (
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/reviewerspec"
)

// The parsed reviewer.yaml is defined in package reviewerspec, so that the
// reviewer row (ent) stores it typed; these are its names here.
type (
	Config       = reviewerspec.Config
	Auto         = reviewerspec.Auto
	Backtest     = reviewerspec.Backtest
	HTTPEndpoint = reviewerspec.HTTPEndpoint
	Acceptance   = reviewerspec.Acceptance
	Demotion     = reviewerspec.Demotion
)

// Bounds and defaults of reviewer.yaml (reviewerspec).
const (
	MaxSamples                 = reviewerspec.MaxSamples
	MaxLenses                  = reviewerspec.MaxLenses
	MaxLensBytes               = reviewerspec.MaxLensBytes
	DefaultVerifyMinConfidence = reviewerspec.DefaultVerifyMinConfidence
	DefaultBacktestMaxCostUSD  = reviewerspec.DefaultBacktestMaxCostUSD
	DemoteMinDecided           = reviewerspec.DemoteMinDecided
)

// Defaults are the values of keys a reviewer.yaml leaves out.
func Defaults() Config { return reviewerspec.Defaults() }

// FromEnt returns the config in force for a stored reviewer: its stored
// config (read over the defaults, Config.UnmarshalJSON), else the defaults.
func FromEnt(r *ent.Reviewer) Config {
	if r.Config == nil {
		return Defaults()
	}
	return *r.Config
}

// RepoConfig is a parsed .github/chakshu.yml, read from the default branch only.
type RepoConfig struct {
	// Reviewers run on a bare "review" command.
	Reviewers []string `yaml:"reviewers" json:"reviewers"`
	// Auto overrides the reviewers' auto settings for this repo when set.
	Auto *RepoAuto `yaml:"auto" json:"auto"`
	// Instructions are owner-trusted policy put in the prompt.
	Instructions string `yaml:"instructions" json:"instructions"`
	// PathFilters are globs dropped from what the agent is shown (advisory).
	PathFilters []string `yaml:"path_filters" json:"path_filters"`
}

// RepoAuto is the per-repo auto review switch.
type RepoAuto struct {
	// Enabled turns automatic reviews on or off for this repository.
	Enabled *bool `yaml:"enabled" json:"enabled"`
	// Reviewers limits auto reviews to these reviewers; empty means each reviewer's own auto setting.
	Reviewers []string `yaml:"reviewers" json:"reviewers"`
	// Drafts overrides whether drafts are reviewed automatically.
	Drafts *bool `yaml:"drafts" json:"drafts"`
}
