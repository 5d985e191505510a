package reviewerconfig

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

const yamlFile = "reviewers/security/reviewer.yaml"

func TestParseReviewerYAMLValid(t *testing.T) {
	full := `description: Finds injection and auth bugs
model: claude-opus-4-1
max_cost_usd: 3.5
max_turns: 60
min_severity: minor
max_findings: 10
fail_check_on: never
auto:
  events: [opened, ready_for_review]
  repos: ["acme/*", "acme/api-{a,b}"]
  paths: ["**/*.go", "cmd/**"]
  drafts: true
request_as: team:security
passes: 3
agree: 2
lenses: [logic, "security and secrets"]
verify: false
verify_min_confidence: 6
backtest:
  prs: 4
  max_cost_usd: 2.5
connectors: [github, http]
http:
  - name: jira_issue
    description: Look up a Jira issue
    url: https://jira.example.com/rest/api/2/issue/{key}?fields={fields}
    params:
      key: "^[A-Z]+-[0-9]+$"
      fields: "^[a-z,]+$"
    header: Authorization
    credential: jira-token
  - name: status
    url: https://status.example.com/api/v2/summary.json
`
	tests := []struct {
		name string
		in   string
		want Config
	}{
		{name: "empty file takes defaults", in: "", want: Defaults()},
		{name: "comment only", in: "# nothing yet\n", want: Defaults()},
		{name: "null values keep defaults", in: "model:\nauto:\n", want: Defaults()},
		{name: "some keys", in: "description: d\nmax_findings: 5\n", want: func() Config {
			c := Defaults()
			c.Description, c.MaxFindings = "d", 5
			return c
		}()},
		{name: "integer cost", in: "max_cost_usd: 4\n", want: func() Config {
			c := Defaults()
			c.MaxCostUSD = 4
			return c
		}()},
		// backtest: each bound passes at the limit; a key left out keeps its default.
		{name: "backtest at its limits", in: "backtest:\n  prs: 50\n  max_cost_usd: 100\n", want: func() Config {
			c := Defaults()
			c.Backtest = Backtest{PRs: 50, MaxCostUSD: 100}
			return c
		}()},
		{name: "backtest smallest", in: "backtest:\n  prs: 1\n", want: func() Config {
			c := Defaults()
			c.Backtest = Backtest{PRs: 1, MaxCostUSD: DefaultBacktestMaxCostUSD}
			return c
		}()},
		{name: "backtest defaults", in: "description: d\n", want: func() Config {
			c := Defaults()
			c.Description = "d"
			c.Backtest = Backtest{PRs: 10, MaxCostUSD: 5} // the documented defaults, literally
			return c
		}()},
		{name: "user request_as", in: "request_as: user:octo-cat\n", want: func() Config {
			c := Defaults()
			c.RequestAs = "user:octo-cat"
			return c
		}()},
		{name: "samples at the limit, agree every pass", in: "samples: 5\nagree: 5\n", want: func() Config {
			c := Defaults()
			c.Samples, c.Agree = 5, 5
			return c
		}()},
		{name: "samples alone keeps agree 1", in: "samples: 2\n", want: func() Config {
			c := Defaults()
			c.Samples = 2
			return c
		}()},
		{name: "agree written before samples", in: "agree: 2\nsamples: 3\n", want: func() Config {
			c := Defaults()
			c.Samples, c.Agree = 3, 2
			return c
		}()},
		{name: "samples is read as passes", in: "samples: 4\nagree: 2\n", want: func() Config {
			c := Defaults()
			c.Samples, c.Agree = 4, 2
			return c
		}()},
		{name: "verification is on by default at 8", in: "passes: 2\n", want: func() Config {
			c := Defaults()
			c.Samples = 2
			if !c.Verify || c.VerifyMinConfidence != 8 {
				panic("defaults")
			}
			return c
		}()},
		{name: "anchors resolve", in: "auto:\n  paths: &p [\"a/**\"]\n  repos: *p\n", want: func() Config {
			c := Defaults()
			c.Auto = Auto{Paths: []string{"a/**"}, Repos: []string{"a/**"}}
			return c
		}()},
		{name: "every key", in: full, want: Config{
			Description: "Finds injection and auth bugs",
			Model:       "claude-opus-4-1",
			MaxCostUSD:  3.5,
			MaxTurns:    60,
			MinSeverity: findings.Minor,
			MaxFindings: 10,
			FailCheckOn: "never",
			Auto: Auto{Events: []string{"opened", "ready_for_review"}, Repos: []string{"acme/*", "acme/api-{a,b}"},
				Paths: []string{"**/*.go", "cmd/**"}, Drafts: true},
			RequestAs: "team:security",
			Samples:   3,
			Agree:     2,
			Lenses:    []string{"logic", "security and secrets"},
			Verify:    false, VerifyMinConfidence: 6,
			Backtest:   Backtest{PRs: 4, MaxCostUSD: 2.5},
			Connectors: []string{"github", "http"},
			HTTP: []HTTPEndpoint{
				{Name: "jira_issue", Description: "Look up a Jira issue",
					URL:    "https://jira.example.com/rest/api/2/issue/{key}?fields={fields}",
					Params: map[string]string{"key": "^[A-Z]+-[0-9]+$", "fields": "^[a-z,]+$"},
					Header: "Authorization", Credential: "jira-token"},
				{Name: "status", URL: "https://status.example.com/api/v2/summary.json"},
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseReviewerYAML(yamlFile, []byte(tt.in))
			if err != nil {
				t.Fatalf("ParseReviewerYAML: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("config (-want +got):\n%s", d)
			}
			// The stored form round-trips.
			back, err := stored(got)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(got, back); d != "" {
				t.Errorf("stored and read back (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseReviewerYAMLErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // every problem, file:line: message prefix
	}{
		{name: "bad severity", in: "description: x\n\n\n\n\n\nmin_severity: critical\n",
			want: []string{yamlFile + ":7: min_severity: want blocker|major|minor|nit"}},
		{name: "unknown key", in: "model: m\nmodle: x\n", want: []string{yamlFile + ":2: modle: unknown key"}},
		{name: "repeated key", in: "model: a\nmodel: b\n", want: []string{yamlFile + ":2: model: key given twice"}},
		{name: "negative cost", in: "max_cost_usd: -1\n", want: []string{yamlFile + ":1: max_cost_usd: want a number above 0"}},
		{name: "zero cost", in: "max_cost_usd: 0\n", want: []string{yamlFile + ":1: max_cost_usd: want a number above 0"}},
		{name: "nan cost", in: "max_cost_usd: .nan\n", want: []string{yamlFile + ":1: max_cost_usd: want a number above 0"}},
		{name: "string cost", in: "max_cost_usd: lots\n", want: []string{yamlFile + ":1: max_cost_usd: want a number"}},
		{name: "negative max_findings", in: "max_findings: -3\n", want: []string{yamlFile + ":1: max_findings: want a number from 1 to 100"}},
		{name: "float turns", in: "max_turns: 2.5\n", want: []string{yamlFile + ":1: max_turns: want a whole number"}},
		{name: "huge turns", in: "max_turns: 100000000000000000000\n", want: []string{yamlFile + ":1: max_turns: want a whole number"}},
		{name: "samples zero", in: "samples: 0\n", want: []string{yamlFile + ":1: samples: want a number from 1 to 5, got 0"}},
		{name: "samples one past the limit", in: "samples: 6\n", want: []string{yamlFile + ":1: samples: want a number from 1 to 5, got 6"}},
		{name: "samples not a number", in: "samples: three\n", want: []string{yamlFile + ":1: samples: want a whole number"}},
		{name: "agree zero", in: "samples: 3\nagree: 0\n", want: []string{yamlFile + ":2: agree: want a number from 1 to 5, got 0"}},
		{name: "agree without samples", in: "agree: 2\n", want: []string{yamlFile + ":1: agree: 2 is more than passes (1)"}},
		{name: "agree one past samples", in: "samples: 2\nagree: 3\n", want: []string{yamlFile + ":2: agree: 3 is more than passes (2)"}},
		{name: "bad samples hides agree's comparison", in: "samples: 9\nagree: 2\n", want: []string{yamlFile + ":1: samples: want a number from 1 to 5"}},
		{name: "backtest prs zero", in: "backtest:\n  prs: 0\n", want: []string{yamlFile + ":2: backtest.prs: want a number from 1 to 50, got 0"}},
		{name: "backtest prs past the limit", in: "backtest:\n  prs: 51\n", want: []string{yamlFile + ":2: backtest.prs: want a number from 1 to 50, got 51"}},
		{name: "backtest cost zero", in: "backtest:\n  max_cost_usd: 0\n", want: []string{yamlFile + ":2: backtest.max_cost_usd: want a number above 0 and at most 100"}},
		{name: "backtest cost past the limit", in: "backtest:\n  max_cost_usd: 100.01\n", want: []string{yamlFile + ":2: backtest.max_cost_usd: want a number above 0 and at most 100"}},
		{name: "demote_below_acceptance above 1", in: "demote_below_acceptance: 1.01\n", want: []string{yamlFile + ":1: demote_below_acceptance: want a fraction from 0 to 1 (0.3 demotes categories under 30% accepted; 0 is off), got \"1.01\""}},
		{name: "demote_below_acceptance negative", in: "demote_below_acceptance: -0.1\n", want: []string{yamlFile + ":1: demote_below_acceptance: want a fraction from 0 to 1"}},
		{name: "demote_below_acceptance as a percent string", in: "demote_below_acceptance: 30%\n", want: []string{yamlFile + ":1: demote_below_acceptance: want a fraction from 0 to 1"}},
		{name: "demote_below_acceptance nan", in: "demote_below_acceptance: .nan\n", want: []string{yamlFile + ":1: demote_below_acceptance: want a fraction from 0 to 1"}},
		{name: "backtest unknown key", in: "backtest:\n  runs: 3\n", want: []string{yamlFile + ":2: backtest.runs: unknown key"}},
		{name: "backtest not a mapping", in: "backtest: 10\n", want: []string{yamlFile + ":1: backtest: want a mapping with prs and max_cost_usd"}},
		{name: "fail_check_on", in: "fail_check_on: sometimes\n", want: []string{yamlFile + ":1: fail_check_on: want blocker|major|minor|nit|never"}},
		{name: "bad glob", in: "auto:\n  paths:\n    - \"src/[a-\"\n", want: []string{yamlFile + ":3: auto.paths: \"src/[a-\": invalid glob"}},
		{name: "absolute glob", in: "auto:\n  repos: [\"/x\"]\n", want: []string{yamlFile + ":2: auto.repos: \"/x\": glob must be relative"}},
		{name: "wildcard-heavy glob", in: "auto:\n  paths: [\"*a*b*c*d*e*f*g*h*i\"]\n", want: []string{yamlFile + ":2: auto.paths: \"*a*b*c*d*e*f*g*h*i\": glob has more than 8 wildcards"}},
		{name: "bad event", in: "auto:\n  events: [opened, closed]\n", want: []string{yamlFile + ":2: auto.events: want opened|ready_for_review|synchronize, got \"closed\""}},
		{name: "auto unknown key", in: "auto:\n  draft: true\n", want: []string{yamlFile + ":2: auto.draft: unknown key"}},
		{name: "drafts not bool", in: "auto:\n  drafts: yes please\n", want: []string{yamlFile + ":2: auto.drafts: want true or false"}},
		{name: "auto not a mapping", in: "auto: true\n", want: []string{yamlFile + ":1: auto: want a mapping"}},
		{name: "request_as org", in: "request_as: org:acme\n", want: []string{yamlFile + ":1: request_as: want team:<slug> or user:<login>"}},
		{name: "request_as bare", in: "request_as: security\n", want: []string{yamlFile + ":1: request_as: want team:<slug> or user:<login>"}},
		{name: "unknown connector", in: "connectors: [github, slack]\n", want: []string{yamlFile + ":1: connectors: unknown connector \"slack\""}},
		{name: "connectors not a list", in: "connectors: github\n", want: []string{yamlFile + ":1: connectors: want a list"}},
		{name: "http without connector", in: "http:\n  - name: a\n    url: https://x.example/a\n",
			want: []string{yamlFile + ":2: http: endpoints are declared but connectors does not list http"}},
		{name: "http connector without endpoints", in: "connectors:\n  - http\n",
			want: []string{yamlFile + ":2: connectors: http needs at least one endpoint"}},
		{name: "http url not https", in: "connectors: [http]\nhttp:\n  - name: a\n    url: http://x.example/a\n",
			want: []string{yamlFile + ":4: http[0].url: want an https:// URL"}},
		{name: "http param without regexp", in: "connectors: [http]\nhttp:\n  - name: a\n    url: https://x.example/{id}\n",
			want: []string{yamlFile + ":4: http[0].url: placeholder {id} has no regular expression under params"}},
		{name: "http unused param", in: "connectors: [http]\nhttp:\n  - name: a\n    url: https://x.example/a\n    params: {id: \"^[0-9]+$\"}\n",
			want: []string{yamlFile + ":4: http[0].url: params id are not used in the url"}},
		{name: "http placeholder in host", in: "connectors: [http]\nhttp:\n  - name: a\n    url: https://{h}.example/a\n    params: {h: \"^[a-z]+$\"}\n",
			want: []string{yamlFile + ":4: http[0].url: placeholders may not be used in the host"}},
		{name: "http bad regexp", in: "connectors: [http]\nhttp:\n  - name: a\n    url: https://x.example/{id}\n    params:\n      id: \"([\"\n",
			want: []string{yamlFile + ":6: http[0].params.id: invalid regular expression"}},
		{name: "http bad header", in: "connectors: [http]\nhttp:\n  - name: a\n    url: https://x.example/a\n    header: \"Bad Header\"\n    credential: c\n",
			want: []string{yamlFile + ":5: http[0].header: \"Bad Header\" is not a valid header name"}},
		{name: "http header without credential", in: "connectors: [http]\nhttp:\n  - name: a\n    url: https://x.example/a\n    header: Authorization\n",
			want: []string{yamlFile + ":5: http[0]: header and credential go together"}},
		{name: "http missing url and name", in: "connectors: [http]\nhttp:\n  - description: d\n",
			want: []string{yamlFile + ":3: http[0]: name is required", yamlFile + ":3: http[0]: url is required"}},
		{name: "http duplicate names", in: "connectors: [http]\nhttp:\n  - {name: a, url: \"https://x.example/a\"}\n  - {name: a, url: \"https://x.example/b\"}\n",
			want: []string{yamlFile + ":4: http[1].name: \"a\" is declared twice"}},
		{name: "http user info", in: "connectors: [http]\nhttp:\n  - name: a\n    url: https://u:p@x.example/a\n",
			want: []string{yamlFile + ":4: http[0].url: want https://host/path with no user info"}},
		{name: "top level list", in: "- a\n- b\n", want: []string{yamlFile + ":1: want a mapping of keys to values"}},
		{name: "syntax error", in: "model: [a\ndescription: b\n", want: []string{yamlFile + ":"}},
		{name: "tab indentation", in: "auto:\n\tevents: [opened]\n", want: []string{yamlFile + ":2: invalid YAML"}},
		{name: "merge key", in: "base: &b {model: x}\n<<: *b\n", want: []string{yamlFile + ":1: base: unknown key", yamlFile + ":2: merge keys"}},
		{name: "too big", in: "description: " + strings.Repeat("x", MaxReviewerYAMLBytes) + "\n", want: []string{yamlFile + ": file is"}},
		{name: "several problems", in: "min_severity: x\nmax_turns: -1\nfoo: 1\n", want: []string{
			yamlFile + ":1: min_severity", yamlFile + ":2: max_turns", yamlFile + ":3: foo: unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseReviewerYAML(yamlFile, []byte(tt.in))
			if d := cmp.Diff(Defaults(), got); d != "" {
				t.Errorf("a failed parse must return the defaults (-want +got):\n%s", d)
			}
			checkProblems(t, err, tt.want)
		})
	}
}

// checkProblems compares err's lines (one problem each) with want prefixes.
func checkProblems(t *testing.T, err error, want []string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *ParseError, got %v", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d = %q, want prefix %q", i, lines[i], w)
		}
	}
}

func TestParseRepoConfig(t *testing.T) {
	tru, fls := true, false
	tests := []struct {
		name string
		in   string
		want RepoConfig
	}{
		{name: "empty", in: "", want: RepoConfig{}},
		{name: "every key", in: `reviewers: [security, perf]
auto:
  enabled: true
  reviewers: [security]
  drafts: false
instructions: |
  We use sqlc; never suggest an ORM.
path_filters: ["vendor/**", "**/*.pb.go"]
`, want: RepoConfig{
			Reviewers:    []string{"security", "perf"},
			Auto:         &RepoAuto{Enabled: &tru, Reviewers: []string{"security"}, Drafts: &fls},
			Instructions: "We use sqlc; never suggest an ORM.",
			PathFilters:  []string{"vendor/**", "**/*.pb.go"},
		}},
		{name: "auto shorthand off", in: "auto: false\n", want: RepoConfig{Auto: &RepoAuto{Enabled: &fls}}},
		{name: "auto drafts only", in: "auto:\n  drafts: true\n", want: RepoConfig{Auto: &RepoAuto{Drafts: &tru}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRepoConfig([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseRepoConfigErrors(t *testing.T) {
	const f = ".github/chakshu.yml"
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{name: "unknown key", in: "reviewers: [a]\npaths: [x]\n", want: []string{f + ":2: paths: unknown key"}},
		{name: "bad reviewer name", in: "reviewers:\n  - Security\n", want: []string{f + ":2: reviewers: \"Security\" is not a reviewer name"}},
		{name: "long reviewer name", in: "reviewers: [" + strings.Repeat("a", 65) + "]\n", want: []string{f + ":1: reviewers: entry of 65 characters"}},
		{name: "bad auto", in: "auto: sometimes\n", want: []string{f + ":1: auto: want true or false"}},
		{name: "bad auto key", in: "auto:\n  on: true\n", want: []string{f + ":2: auto.on: unknown key"}},
		{name: "bad auto reviewer", in: "auto:\n  reviewers: [a_b]\n", want: []string{f + ":2: auto.reviewers: \"a_b\" is not a reviewer name"}},
		{name: "instructions too long", in: "instructions: " + strings.Repeat("x", MaxInstructions+1) + "\n", want: []string{f + ":1: instructions: 8001 characters, over the limit of 8000"}},
		{name: "instructions a list", in: "instructions: [a]\n", want: []string{f + ":1: instructions: want a string"}},
		{name: "bad filter", in: "path_filters: [\"{a,b\"]\n", want: []string{f + ":1: path_filters: \"{a,b\": invalid glob"}},
		{name: "filter not a list", in: "path_filters: vendor/**\n", want: []string{f + ":1: path_filters: want a list"}},
		{name: "duplicate entry", in: "reviewers: [a, a]\n", want: []string{f + ":1: reviewers: \"a\" listed twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRepoConfig([]byte(tt.in))
			if err == nil {
				t.Fatalf("no error; got %+v", got)
			}
			if d := cmp.Diff(RepoConfig{}, got); d != "" {
				t.Errorf("a failed parse returns the zero config (-want +got):\n%s", d)
			}
			checkProblems(t, err, tt.want)
		})
	}
}

func TestValidName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"security", true}, {"perf-2", true}, {"a", true}, {strings.Repeat("a", 64), true},
		{"", false}, {strings.Repeat("a", 65), false}, {"Security", false}, {"a_b", false}, {"a.b", false}, {"../x", false}, {"a b", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidName(tt.name); got != tt.ok {
				t.Errorf("ValidName(%q) = %v, want %v", tt.name, got, tt.ok)
			}
		})
	}
}

func FuzzParseReviewerYAML(f *testing.F) {
	f.Add([]byte("model: m\nauto:\n  events: [opened]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := ParseReviewerYAML(yamlFile, b)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || len(pe.Problems) == 0 {
				t.Fatalf("error is not a ParseError with problems: %v", err)
			}
			for _, p := range pe.Problems {
				if !strings.HasPrefix(p.String(), yamlFile+":") {
					t.Fatalf("problem does not name the file: %q", p)
				}
			}
			return
		}
		// Whatever parses is within the documented bounds.
		if !cfg.MinSeverity.Valid() || cfg.MaxCostUSD <= 0 || cfg.MaxCostUSD > maxCostUSDLimit ||
			cfg.MaxTurns < 1 || cfg.MaxTurns > maxTurnsLimit || cfg.MaxFindings < 1 || cfg.MaxFindings > maxFindingsLimit {
			t.Fatalf("out of bounds: %+v", cfg)
		}
		if cfg.FailCheckOn != "never" && !findings.Severity(cfg.FailCheckOn).Valid() {
			t.Fatalf("fail_check_on %q", cfg.FailCheckOn)
		}
		for _, g := range append(append([]string{}, cfg.Auto.Paths...), cfg.Auto.Repos...) {
			if ValidateGlob(g) != nil {
				t.Fatalf("invalid glob accepted: %q", g)
			}
		}
		for _, e := range cfg.HTTP {
			if checkURLTemplate(e.URL, e.Params) != "" || !strings.HasPrefix(e.URL, "https://") {
				t.Fatalf("invalid endpoint accepted: %+v", e)
			}
		}
		if _, err := stored(cfg); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzParseRepoConfig(f *testing.F) {
	f.Add([]byte("reviewers: [a]\nauto: false\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rc, err := ParseRepoConfig(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), RepoConfigPath) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, n := range rc.Reviewers {
			if !ValidName(n) {
				t.Fatalf("invalid name accepted: %q", n)
			}
		}
		for _, g := range rc.PathFilters {
			if ValidateGlob(g) != nil {
				t.Fatalf("invalid glob accepted: %q", g)
			}
		}
		if len(rc.Instructions) > MaxInstructions {
			t.Fatal("instructions over the cap")
		}
	})
}

func TestParseSkillFrontMatter(t *testing.T) {
	const f = "reviewers/a/skills/s/SKILL.md"
	tests := []struct {
		name, in, wantName, wantDesc string
		wantErr                      []string
	}{
		{name: "plain", in: "---\nname: s\ndescription: Finds things.\n---\n# Body\n", wantName: "s", wantDesc: "Finds things."},
		{name: "crlf and closing at end of file", in: "---\r\nname: s\r\ndescription: d\r\n---", wantName: "s", wantDesc: "d"},
		{name: "claude keys allowed", in: "---\nname: s\ndescription: d\nlicense: MIT\nallowed-tools: Read\n---\n", wantName: "s", wantDesc: "d"},
		{name: "no front matter", in: "# Body\n", wantErr: []string{f + ":1: want front matter"}},
		{name: "not closed", in: "---\nname: s\n", wantErr: []string{f + ":1: front matter is not closed"}},
		{name: "unknown key", in: "---\nname: s\ndescription: d\nowner: x\n---\n", wantErr: []string{f + ":4: owner: unknown key"}},
		{name: "bad name", in: "---\nname: Big Skill\ndescription: d\n---\n", wantErr: []string{f + ":2: name: \"Big Skill\": want [a-z0-9-]{1,64}"}},
		{name: "missing both", in: "---\nlicense: MIT\n---\n", wantErr: []string{f + ":3: front matter: name is required", f + ":3: front matter: description is required"}},
		{name: "syntax error", in: "---\nname: [s\n---\n", wantErr: []string{f + ":"}},
		{name: "long description", in: "---\nname: s\ndescription: " + strings.Repeat("d", 1025) + "\n---\n", wantErr: []string{f + ":3: description: 1025 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, desc, err := parseSkillFrontMatter(f, []byte(tt.in))
			if tt.wantErr != nil {
				checkProblems(t, err, tt.wantErr)
				return
			}
			if err != nil || name != tt.wantName || desc != tt.wantDesc {
				t.Errorf("got %q, %q, %v", name, desc, err)
			}
		})
	}
}

func FuzzParseSkillFrontMatter(f *testing.F) {
	f.Add([]byte("---\nname: s\ndescription: d\n---\nbody\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		const file = "reviewers/a/skills/s/SKILL.md"
		name, desc, err := parseSkillFrontMatter(file, b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), file+":") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if !ValidName(name) || desc == "" || len(desc) > maxSkillDescription {
			t.Fatalf("accepted name %q description %q", name, desc)
		}
	})
}

// A reviewer stored before samples and agree existed (no such keys in its
// JSON) runs one pass that keeps every finding.
func TestStoredConfigWithoutSamples(t *testing.T) {
	var got Config
	if err := json.Unmarshal([]byte(`{"model": "claude-haiku-5-5", "max_turns": 12}`), &got); err != nil {
		t.Fatal(err)
	}
	if got.Samples != 1 || got.Agree != 1 || got.MaxTurns != 12 || got.VerifyMinConfidence != DefaultVerifyMinConfidence {
		t.Fatalf("samples %d, agree %d, max_turns %d, verify_min_confidence %d; want 1, 1, 12 and the default",
			got.Samples, got.Agree, got.MaxTurns, got.VerifyMinConfidence)
	}
	got = Config{}
	err := json.Unmarshal([]byte(`{"model": "claude-haiku-5-5", "samples": 3, "agree": 2}`), &got)
	if err != nil || got.Samples != 3 || got.Agree != 2 {
		t.Fatalf("stored samples lost: %+v, %v", got, err)
	}
}

func TestDemoteBelowAcceptanceParses(t *testing.T) {
	for in, want := range map[string]float64{"0": 0, "0.3": 0.3, "1": 1} {
		c, err := ParseReviewerYAML(yamlFile, []byte("demote_below_acceptance: "+in+"\n"))
		if err != nil || c.DemoteBelowAcceptance != want {
			t.Errorf("%s: %v, %v; want %v", in, c.DemoteBelowAcceptance, err, want)
		}
		back, err := stored(c)
		if err != nil || back.DemoteBelowAcceptance != want {
			t.Errorf("%s: stored and read back as %v, %v", in, back.DemoteBelowAcceptance, err)
		}
	}
	if c := Defaults(); c.DemoteBelowAcceptance != 0 {
		t.Errorf("default %v, want 0 (off)", c.DemoteBelowAcceptance)
	}
}

func TestDemotions(t *testing.T) {
	at := func(min findings.Severity, threshold float64) Config {
		c := Defaults()
		c.MinSeverity, c.DemoteBelowAcceptance = min, threshold
		return c
	}
	by := map[string]Acceptance{
		"style":  {Accepted: 1, Decided: DemoteMinDecided},     // 20%
		"naming": {Accepted: 0, Decided: DemoteMinDecided - 1}, // too few
		"docs":   {Accepted: 3, Decided: 10},                   // 30%: at a 0.3 threshold, not below
		"":       {Accepted: 0, Decided: 6},                    // no category: judged like any
		"bug":    {Accepted: 9, Decided: 10},
	}
	cases := []struct {
		name string
		cfg  Config
		want []Demotion
	}{
		{"off", at(findings.Nit, 0), nil},
		{"nit floor to minor", at(findings.Nit, 0.3), []Demotion{
			{Category: "", Rate: 0, Decided: 6, Floor: findings.Minor},
			{Category: "style", Rate: 0.2, Decided: 5, Floor: findings.Minor}}},
		{"just above docs' rate", at(findings.Nit, 0.31), []Demotion{
			{Category: "", Rate: 0, Decided: 6, Floor: findings.Minor},
			{Category: "docs", Rate: 0.3, Decided: 10, Floor: findings.Minor},
			{Category: "style", Rate: 0.2, Decided: 5, Floor: findings.Minor}}},
		{"major floor to blocker", at(findings.Major, 0.1), []Demotion{{Category: "", Rate: 0, Decided: 6, Floor: findings.Blocker}}},
		{"blocker floor cannot rise", at(findings.Blocker, 1), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, c.cfg.Demotions(by)); d != "" {
				t.Errorf("Demotions (-want +got):\n%s", d)
			}
		})
	}
	d := Demotion{Category: "style", Rate: 0.2, Decided: 5, Floor: findings.Minor}
	if got := d.String(); got != "style: 20% of 5 decided findings accepted in 90 days; only minor and above posted" {
		t.Errorf("String = %q", got)
	}
}

// stored is c as a reviewer row stores it (JSON), read back.
func stored(c Config) (Config, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return Config{}, err
	}
	var back Config
	return back, json.Unmarshal(b, &back)
}
