// Package reviewerspec holds a reviewer's parsed reviewer.yaml (Config),
// as package reviewerconfig parses it and the reviewer row stores it typed
// (ent imports this package; it imports nothing of Chakshu's that imports
// ent).
package reviewerspec

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// Config is a parsed reviewer.yaml. It is stored as JSON on the reviewer row.
type Config struct {
	Description string `yaml:"description" json:"description"`
	// Model is the Anthropic model id.
	Model string `yaml:"model" json:"model"`
	// MaxCostUSD caps one run's model spend.
	MaxCostUSD float64 `yaml:"max_cost_usd" json:"max_cost_usd"`
	// MaxTurns caps the agent's turns.
	MaxTurns int `yaml:"max_turns" json:"max_turns"`
	// MinSeverity drops findings below it.
	MinSeverity findings.Severity `yaml:"min_severity" json:"min_severity"`
	// MaxFindings caps posted findings per run.
	MaxFindings int `yaml:"max_findings" json:"max_findings"`
	// FailCheckOn is a severity, or "never".
	FailCheckOn string `yaml:"fail_check_on" json:"fail_check_on"`
	// Auto says when the reviewer runs without being asked.
	Auto Auto `yaml:"auto" json:"auto"`
	// RequestAs is "team:<slug>" or "user:<login>": a review request for it triggers the reviewer.
	RequestAs string `yaml:"request_as" json:"request_as"`
	// Connectors the reviewer may use ("github", "http").
	Connectors []string `yaml:"connectors" json:"connectors"`
	// HTTP declares the endpoints of the http connector.
	HTTP []HTTPEndpoint `yaml:"http" json:"http"`
	// GitHubRepos are the repositories (owner/name) of the installation the
	// github connector may read besides the reviewed one; a private one is
	// still never read into a run on a public repository.
	GitHubRepos []string `yaml:"github_repos" json:"github_repos,omitempty"`
	// Samples is how many independent agent passes one review runs, within
	// the one MaxCostUSD (each pass gets a share of it); 1 to MaxSamples.
	// reviewer.yaml names it passes (samples is still read as its alias);
	// it is stored as samples, as before the rename.
	Samples int `yaml:"passes" json:"samples,omitempty"`
	// Agree is how many of the passes must report a finding (the same
	// finding by findings.Same, the one rule for grouping by meaning) for
	// the review to keep it; 1 to Samples.
	Agree int `yaml:"agree" json:"agree,omitempty"`
	// Lenses are the focuses the passes take in turn (pass i reviews with
	// Lenses[(i-1) % len]); empty means DefaultLenses when Samples is above
	// 1 (PassLenses).
	Lenses []string `yaml:"lenses" json:"lenses,omitempty"`
	// Verify turns on the verification step: each finding that survives
	// the vote is checked in a fresh conversation told to refute it, and
	// dropped under VerifyMinConfidence (0-10).
	Verify              bool `yaml:"verify" json:"verify"`
	VerifyMinConfidence int  `yaml:"verify_min_confidence" json:"verify_min_confidence"`
	// DemoteBelowAcceptance (0 to 1; 0, the default, is off) raises by one
	// step the severity floor of a category whose acceptance over the last
	// 90 days is below it, once DemoteMinDecided of its findings are
	// decided: categories people keep dismissing post only their more
	// severe findings (Demotions).
	DemoteBelowAcceptance float64 `yaml:"demote_below_acceptance" json:"demote_below_acceptance,omitempty"`
	// Backtest sizes the backtest of a change to this reviewer (a pull
	// request to the reviewers repository): how many recently reviewed pull
	// requests it replays and what all its shadow runs may cost together.
	Backtest Backtest `yaml:"backtest" json:"backtest"`
}

// MaxSamples bounds reviewer.yaml's samples: each pass costs about as much
// as a whole single-pass review, inside one run's cost cap and wall time.
const MaxSamples = 5

// DefaultLenses are the focuses of a review in several passes whose
// reviewer.yaml names none: different angles find different bugs (Cursor's
// Bugbot varies its passes; docs/reviewers.md).
var DefaultLenses = []string{
	"logic and data flow: wrong conditions, off-by-one, nil or empty values, state that goes stale",
	"contracts and concurrency: callers and callees of what changed, API and schema compatibility, error paths, races",
	"security and data safety: untrusted input, injection, secrets, permissions, data loss",
}

// PassLenses are the lenses a review's passes take: the reviewer's, else
// DefaultLenses for more than one pass, else none.
func (c Config) PassLenses() []string {
	switch {
	case len(c.Lenses) > 0:
		return c.Lenses
	case c.Samples > 1:
		return DefaultLenses
	}
	return nil
}

// MaxLenses and MaxLensBytes bound reviewer.yaml's lenses.
const (
	MaxLenses    = 8
	MaxLensBytes = 300
)

// DefaultVerifyMinConfidence is the verifier's confidence a finding needs
// to be kept: 8 of 10, "the failure follows from the code and nothing that
// prevents it was found" on the verifier's scale, as Anthropic's security
// review drops findings under 8/10 (docs/reviewers.md).
const DefaultVerifyMinConfidence = 8

// Backtest is reviewer.yaml's backtest key.
type Backtest struct {
	// PRs is how many of the pull requests the reviewer reviewed last are replayed.
	PRs int `yaml:"prs" json:"prs"`
	// MaxCostUSD caps the cost of all the backtest's shadow runs together.
	MaxCostUSD float64 `yaml:"max_cost_usd" json:"max_cost_usd"`
}

// Backtest defaults: the last 10 reviewed pull requests, $5 in all.
const (
	DefaultBacktestPRs        = 10
	DefaultBacktestMaxCostUSD = 5.0
)

// Auto configures automatic reviews.
type Auto struct {
	// Events among opened, ready_for_review, synchronize; empty means never.
	Events []string `yaml:"events" json:"events"`
	// Repos are globs of owner/name; empty means every repository.
	Repos []string `yaml:"repos" json:"repos"`
	// Paths are globs; the PR must touch a matching file. Empty means any.
	Paths []string `yaml:"paths" json:"paths"`
	// Drafts: whether draft PRs are reviewed automatically.
	Drafts bool `yaml:"drafts" json:"drafts"`
}

// HTTPEndpoint is one GET endpoint of the http connector.
type HTTPEndpoint struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	// URL is a template with {param} placeholders, e.g. https://jira.example.com/rest/api/2/issue/{key}.
	URL string `yaml:"url" json:"url"`
	// Params maps each placeholder to a regular expression its value must match.
	Params map[string]string `yaml:"params" json:"params"`
	// Header is the header the credential goes in, e.g. Authorization.
	Header string `yaml:"header" json:"header"`
	// Credential names a stored connector credential.
	Credential string `yaml:"credential" json:"credential"`
}

// DefaultMaxFindings caps posted findings per run: the best tools on the
// open code-review benchmark post about 3 findings per pull request against
// 2.7 real issues, so 10 leaves room for a large change while a run that
// floods a pull request with findings is cut (docs/reviewers.md).
const DefaultMaxFindings = 10

// Defaults are the values of keys a reviewer.yaml leaves out.
func Defaults() Config {
	return Config{
		Model:       "claude-sonnet-5-5",
		MaxCostUSD:  2.0,
		MaxTurns:    40,
		MinSeverity: findings.Nit,
		MaxFindings: DefaultMaxFindings,
		FailCheckOn: string(findings.Blocker),
		Samples:     1,
		Agree:       1,
		Verify:      true,
		// Stored configs from before the field decode over this default.
		VerifyMinConfidence: DefaultVerifyMinConfidence,
		Backtest:            Backtest{PRs: DefaultBacktestPRs, MaxCostUSD: DefaultBacktestMaxCostUSD},
	}
}

// UnmarshalJSON reads c's stored form over the defaults: a key the stored
// JSON lacks (a config stored before the key existed) keeps its default, as
// do samples and agree stored as 0.
func (c *Config) UnmarshalJSON(b []byte) error {
	type stored Config // without this method
	s := stored(Defaults())
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*c = Config(s)
	c.Samples, c.Agree = max(c.Samples, 1), max(c.Agree, 1)
	return nil
}

// DemoteMinDecided is how many decided findings a category needs in the
// window before demote_below_acceptance judges it: one dismissal of a rare
// category demotes nothing.
const DemoteMinDecided = 5

// Acceptance is what became of a category's decided findings.
type Acceptance struct {
	// Accepted are fixed or acknowledged, of Decided.
	Accepted, Decided int
}

// Demotion is a category whose severity floor is raised: its acceptance
// Rate over Decided findings is below the reviewer's threshold.
type Demotion struct {
	Category string
	Rate     float64
	Decided  int
	// Floor is the raised floor: findings of the category below it are
	// not posted.
	Floor findings.Severity
}

// Demotions are the categories of by (acceptance per category over the
// window) that demote_below_acceptance demotes, sorted by category: those
// with at least DemoteMinDecided decided findings whose acceptance is
// below the threshold get the severity one step above MinSeverity. None
// when the key is off or the floor is already blocker.
func (c Config) Demotions(by map[string]Acceptance) []Demotion {
	if c.DemoteBelowAcceptance <= 0 {
		return nil
	}
	min := c.MinSeverity
	if !min.Valid() {
		min = findings.Nit
	}
	r := min.Rank()
	if r == 0 {
		return nil
	}
	floor := findings.Severities[r-1]
	var out []Demotion
	for cat, a := range by {
		if a.Decided < DemoteMinDecided {
			continue
		}
		rate := float64(a.Accepted) / float64(a.Decided)
		if rate < c.DemoteBelowAcceptance {
			out = append(out, Demotion{Category: cat, Rate: rate, Decided: a.Decided, Floor: floor})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Category < out[j].Category })
	return out
}

// String says why the category is demoted, for logs and the check run.
func (d Demotion) String() string {
	cat := d.Category
	if cat == "" {
		cat = "(no category)"
	}
	return fmt.Sprintf("%s: %.0f%% of %d decided findings accepted in 90 days; only %s and above posted", cat, d.Rate*100, d.Decided, d.Floor)
}
