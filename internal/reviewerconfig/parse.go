package reviewerconfig

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// Limits of a reviewer.yaml.
const (
	// MaxReviewerYAMLBytes caps the size of one reviewer.yaml.
	MaxReviewerYAMLBytes = 64 << 10
	maxDescription       = 1000
	maxHTTPEndpoints     = 20
	maxParamPattern      = 200
	maxURLTemplate       = 2000
	// Upper bounds of the caps a reviewer may set.
	maxCostUSDLimit  = 100.0
	maxTurnsLimit    = 200
	maxFindingsLimit = 100
	// MaxBacktestPRs and MaxBacktestCostUSD bound reviewer.yaml's backtest key.
	MaxBacktestPRs     = 50
	MaxBacktestCostUSD = 100.0
)

// Auto review events.
const (
	EventOpened         = "opened"
	EventReadyForReview = "ready_for_review"
	EventSynchronize    = "synchronize"
)

// AutoEvents are the PR events auto review can run on.
var AutoEvents = []string{EventOpened, EventReadyForReview, EventSynchronize}

// Connectors are the built-in connectors.
var Connectors = []string{"github", "http"}

var (
	modelRE      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,99}$`)
	requestAsRE  = regexp.MustCompile(`^(team|user):([A-Za-z0-9][A-Za-z0-9_.-]{0,99})$`)
	endpointRE   = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	paramNameRE  = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,63}$`)
	placeholder  = regexp.MustCompile(`\{([^{}]*)\}`)
	headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")
	credentialRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
)

var reviewerKeys = []string{"description", "model", "max_cost_usd", "max_turns", "min_severity", "max_findings",
	"fail_check_on", "auto", "request_as", "connectors", "http", "github_repos", "passes", "samples", "agree", "lenses", "verify", "verify_min_confidence", "backtest", "demote_below_acceptance"}

// MaxGitHubRepos bounds reviewer.yaml's github_repos.
const MaxGitHubRepos = 20

var githubRepoRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$`)

// ParseReviewerYAML parses and validates reviewers/<name>/reviewer.yaml.
// name is the file's path, used in messages. Keys left out take Defaults().
// The error, a *ParseError, names the file and line of every problem.
func ParseReviewerYAML(name string, b []byte) (Config, error) {
	c := &checker{file: name}
	cfg := Defaults()
	root := c.root(b, MaxReviewerYAMLBytes)
	if root == nil {
		return cfg, c.err()
	}
	httpLine := 0
	connLine := 0
	reposLine := 0
	agreeLine, passesLine := 0, 0
	for _, f := range c.fields(root, "", reviewerKeys) {
		switch f.key {
		case "description":
			if s, ok := c.str(f, f.key, maxDescription); ok {
				cfg.Description = strings.TrimSpace(s)
			}
		case "model":
			if s, ok := c.str(f, f.key, 100); ok {
				if !modelRE.MatchString(s) {
					c.addf(f.value.Line, "model: %q is not a model id", s)
				} else {
					cfg.Model = s
				}
			}
		case "max_cost_usd":
			if v, ok := c.number(f, f.key, 0, maxCostUSDLimit); ok {
				cfg.MaxCostUSD = v
			}
		case "max_turns":
			if v, ok := c.integer(f, f.key, 1, maxTurnsLimit); ok {
				cfg.MaxTurns = v
			}
		case "max_findings":
			if v, ok := c.integer(f, f.key, 1, maxFindingsLimit); ok {
				cfg.MaxFindings = v
			}
		case "min_severity":
			if s, ok := c.str(f, f.key, 20); ok {
				if !findings.Severity(s).Valid() {
					c.addf(f.value.Line, "min_severity: want blocker|major|minor|nit, got %q", s)
				} else {
					cfg.MinSeverity = findings.Severity(s)
				}
			}
		case "fail_check_on":
			if s, ok := c.str(f, f.key, 20); ok {
				if s != "never" && !findings.Severity(s).Valid() {
					c.addf(f.value.Line, "fail_check_on: want blocker|major|minor|nit|never, got %q", s)
				} else {
					cfg.FailCheckOn = s
				}
			}
		case "request_as":
			if s, ok := c.str(f, f.key, 110); ok {
				if !requestAsRE.MatchString(s) {
					c.addf(f.value.Line, "request_as: want team:<slug> or user:<login>, got %q", s)
				} else {
					cfg.RequestAs = s
				}
			}
		case "auto":
			cfg.Auto = c.auto(f)
		case "backtest":
			cfg.Backtest = c.backtest(f)
		case "connectors":
			connLine = f.value.Line
			items, _ := c.strs(f, f.key, len(Connectors), 20)
			for _, it := range items {
				if !contains(Connectors, it.value) {
					c.addf(it.line, "connectors: unknown connector %q (known: %s)", it.value, strings.Join(Connectors, ", "))
					continue
				}
				cfg.Connectors = append(cfg.Connectors, it.value)
			}
		case "http":
			httpLine = f.value.Line
			cfg.HTTP = c.endpoints(f)
		case "passes", "samples": // samples is passes' old name, still read
			if passesLine > 0 {
				c.addf(f.line, "%s: passes and samples are one key (samples is its old name); keep passes", f.key)
			}
			passesLine = f.value.Line
			if v, ok := c.integer(f, f.key, 1, MaxSamples); ok {
				cfg.Samples = v
			}
		case "lenses":
			items, _ := c.strs(f, f.key, MaxLenses, MaxLensBytes)
			cfg.Lenses = nil
			for _, it := range items {
				if strings.TrimSpace(it.value) == "" {
					c.addf(it.line, "lenses: a lens must not be empty")
					continue
				}
				cfg.Lenses = append(cfg.Lenses, strings.TrimSpace(it.value))
			}
		case "verify":
			if v, ok := c.boolean(f, f.key); ok {
				cfg.Verify = v
			}
		case "demote_below_acceptance":
			var v float64
			if f.value.Kind != yaml.ScalarNode || (f.value.Tag != "!!int" && f.value.Tag != "!!float") || f.value.Decode(&v) != nil ||
				math.IsNaN(v) || v < 0 || v > 1 {
				c.addf(f.value.Line, "demote_below_acceptance: want a fraction from 0 to 1 (0.3 demotes categories under 30%% accepted; 0 is off), got %q", f.value.Value)
			} else {
				cfg.DemoteBelowAcceptance = v
			}
		case "verify_min_confidence":
			if v, ok := c.integer(f, f.key, 0, 10); ok {
				cfg.VerifyMinConfidence = v
			}
		case "agree":
			agreeLine = f.value.Line
			if v, ok := c.integer(f, f.key, 1, MaxSamples); ok {
				cfg.Agree = v
			}
		case "github_repos":
			reposLine = f.value.Line
			items, _ := c.strs(f, f.key, MaxGitHubRepos, 201)
			for _, it := range items {
				if !githubRepoRE.MatchString(it.value) || strings.Contains(it.value, "..") {
					c.addf(it.line, "github_repos: want owner/name, got %q", it.value)
					continue
				}
				cfg.GitHubRepos = append(cfg.GitHubRepos, it.value)
			}
		}
	}
	if agreeLine > 0 && cfg.Agree > cfg.Samples && !c.has("passes") && !c.has("samples") && !c.has("agree") {
		c.addf(agreeLine, "agree: %d is more than passes (%d): a finding can be reported by at most every pass; raise passes or lower agree", cfg.Agree, cfg.Samples)
	}
	if reposLine > 0 && !contains(cfg.Connectors, "github") {
		c.addf(reposLine, "github_repos: repositories are listed but connectors does not list github")
	}
	hasHTTP := contains(cfg.Connectors, "http")
	switch {
	case httpLine > 0 && !hasHTTP:
		c.addf(httpLine, "http: endpoints are declared but connectors does not list http")
	case hasHTTP && httpLine == 0:
		c.addf(connLine, "connectors: http needs at least one endpoint declared under http")
	}
	if err := c.err(); err != nil {
		return Defaults(), err
	}
	return cfg, nil
}

// backtest reads backtest: {prs: N, max_cost_usd: X}; a key left out keeps its default.
func (c *checker) backtest(f field) Backtest {
	b := Defaults().Backtest
	if f.value.Kind != yaml.MappingNode {
		c.addf(f.value.Line, "backtest: want a mapping with prs and max_cost_usd")
		return b
	}
	for _, g := range c.fields(f.value, "backtest.", []string{"prs", "max_cost_usd"}) {
		switch g.key {
		case "prs":
			if v, ok := c.integer(g, "backtest.prs", 1, MaxBacktestPRs); ok {
				b.PRs = v
			}
		case "max_cost_usd":
			if v, ok := c.number(g, "backtest.max_cost_usd", 0, MaxBacktestCostUSD); ok {
				b.MaxCostUSD = v
			}
		}
	}
	return b
}

func (c *checker) auto(f field) Auto {
	var a Auto
	if f.value.Kind != yaml.MappingNode {
		c.addf(f.value.Line, "auto: want a mapping with events, repos, paths, drafts")
		return a
	}
	for _, g := range c.fields(f.value, "auto.", []string{"events", "repos", "paths", "drafts"}) {
		switch g.key {
		case "events":
			items, _ := c.strs(g, "auto.events", len(AutoEvents), 30)
			for _, it := range items {
				if !contains(AutoEvents, it.value) {
					c.addf(it.line, "auto.events: want opened|ready_for_review|synchronize, got %q", it.value)
					continue
				}
				a.Events = append(a.Events, it.value)
			}
		case "repos":
			a.Repos = c.globs(g, "auto.repos", 100)
		case "paths":
			a.Paths = c.globs(g, "auto.paths", 100)
		case "drafts":
			a.Drafts, _ = c.boolean(g, "auto.drafts")
		}
	}
	return a
}

var endpointKeys = []string{"name", "description", "url", "params", "header", "credential"}

func (c *checker) endpoints(f field) []HTTPEndpoint {
	if f.value.Kind != yaml.SequenceNode {
		c.addf(f.value.Line, "http: want a list of endpoints")
		return nil
	}
	if len(f.value.Content) > maxHTTPEndpoints {
		c.addf(f.value.Line, "http: %d endpoints, over the limit of %d", len(f.value.Content), maxHTTPEndpoints)
		return nil
	}
	var out []HTTPEndpoint
	seen := map[string]bool{}
	for i, en := range f.value.Content {
		en = deref(en)
		at := fmt.Sprintf("http[%d]", i)
		if en == nil || en.Kind != yaml.MappingNode {
			c.addf(f.value.Line, "%s: want a mapping with name, url, params, header, credential", at)
			continue
		}
		var e HTTPEndpoint
		urlLine, headerLine := en.Line, 0
		for _, g := range c.fields(en, at+".", endpointKeys) {
			switch g.key {
			case "name":
				if s, ok := c.str(g, at+".name", 64); ok {
					if !endpointRE.MatchString(s) {
						c.addf(g.value.Line, "%s.name: %q: want [a-z][a-z0-9_]{0,63}", at, s)
					} else if seen[s] {
						c.addf(g.value.Line, "%s.name: %q is declared twice", at, s)
					} else {
						seen[s] = true
						e.Name = s
					}
				}
			case "description":
				if s, ok := c.str(g, at+".description", maxDescription); ok {
					e.Description = strings.TrimSpace(s)
				}
			case "url":
				urlLine = g.value.Line
				e.URL, _ = c.str(g, at+".url", maxURLTemplate)
			case "params":
				e.Params = c.params(g, at)
			case "header":
				headerLine = g.value.Line
				if s, ok := c.str(g, at+".header", 100); ok {
					if !headerNameRE.MatchString(s) {
						c.addf(g.value.Line, "%s.header: %q is not a valid header name", at, s)
					} else {
						e.Header = s
					}
				}
			case "credential":
				if s, ok := c.str(g, at+".credential", 64); ok {
					if !credentialRE.MatchString(s) {
						c.addf(g.value.Line, "%s.credential: %q: want [A-Za-z0-9][A-Za-z0-9_.-]{0,63}", at, s)
					} else {
						e.Credential = s
					}
				}
			}
		}
		if e.Name == "" && !c.has(at+".name") {
			c.addf(en.Line, "%s: name is required", at)
		}
		if e.URL == "" {
			if !c.has(at + ".url") {
				c.addf(urlLine, "%s: url is required", at)
			}
		} else if msg := checkURLTemplate(e.URL, e.Params); msg != "" && !c.has(at+".params") {
			c.addf(urlLine, "%s.url: %s", at, msg)
		}
		if (e.Header == "") != (e.Credential == "") && !c.has(at+".header") && !c.has(at+".credential") {
			line := headerLine
			if line == 0 {
				line = en.Line
			}
			c.addf(line, "%s: header and credential go together: give both or neither", at)
		}
		out = append(out, e)
	}
	return out
}

// has reports whether a problem was already recorded for the key path.
func (c *checker) has(prefix string) bool {
	for _, p := range c.problems {
		if strings.HasPrefix(p.Msg, prefix) {
			return true
		}
	}
	return false
}

func (c *checker) params(f field, at string) map[string]string {
	if f.value.Kind != yaml.MappingNode {
		c.addf(f.value.Line, "%s.params: want a mapping of parameter names to regular expressions", at)
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(f.value.Content); i += 2 {
		k, v := deref(f.value.Content[i]), deref(f.value.Content[i+1])
		if k == nil || k.Kind != yaml.ScalarNode || !paramNameRE.MatchString(k.Value) {
			c.addf(f.value.Content[i].Line, "%s.params: want parameter names matching [a-z_][a-z0-9_]*", at)
			continue
		}
		if _, dup := out[k.Value]; dup {
			c.addf(k.Line, "%s.params.%s: given twice", at, k.Value)
			continue
		}
		if v == nil || v.Kind != yaml.ScalarNode || isNull(v) {
			c.addf(k.Line, "%s.params.%s: want a regular expression", at, k.Value)
			continue
		}
		if len(v.Value) > maxParamPattern {
			c.addf(v.Line, "%s.params.%s: pattern over %d characters", at, k.Value, maxParamPattern)
			continue
		}
		if _, err := regexp.Compile(v.Value); err != nil {
			c.addf(v.Line, "%s.params.%s: invalid regular expression: %v", at, k.Value, err)
			continue
		}
		out[k.Value] = v.Value
	}
	return out
}

// checkURLTemplate validates an endpoint URL template: https, a fixed host,
// and every {param} declared in params (and every param used).
func checkURLTemplate(tmpl string, params map[string]string) string {
	used := map[string]bool{}
	for _, m := range placeholder.FindAllStringSubmatch(tmpl, -1) {
		if !paramNameRE.MatchString(m[1]) {
			return fmt.Sprintf("placeholder {%s}: want [a-z_][a-z0-9_]*", m[1])
		}
		if _, ok := params[m[1]]; !ok {
			return fmt.Sprintf("placeholder {%s} has no regular expression under params", m[1])
		}
		used[m[1]] = true
	}
	var unused []string
	for p := range params {
		if !used[p] {
			unused = append(unused, p)
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return fmt.Sprintf("params %s are not used in the url", strings.Join(unused, ", "))
	}
	filled := placeholder.ReplaceAllString(tmpl, "x")
	if strings.ContainsAny(filled, "{} \t\r\n") {
		return "unbalanced braces or whitespace in the url"
	}
	u, err := url.Parse(filled)
	if err != nil {
		return "not a valid URL"
	}
	if u.Scheme != "https" {
		return "want an https:// URL"
	}
	if u.Host == "" || u.User != nil || u.Fragment != "" {
		return "want https://host/path with no user info or fragment"
	}
	// The host is fixed: placeholders only in the path and query.
	rest := strings.TrimPrefix(tmpl, "https://")
	host := rest
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		host = rest[:i]
	}
	if strings.Contains(host, "{") {
		return "placeholders may not be used in the host"
	}
	return ""
}
