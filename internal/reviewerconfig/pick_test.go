package reviewerconfig

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPick(t *testing.T) {
	tru, fls := true, false
	cfg := func(f func(*Config)) Config {
		c := Defaults()
		f(&c)
		return c
	}
	reviewers := []Candidate{
		{ID: 1, Name: "security", Enabled: true, Config: cfg(func(c *Config) {
			c.RequestAs = "team:security"
			c.Auto = Auto{Events: []string{"opened", "ready_for_review"}, Paths: []string{"**/*.go", "go.mod"}}
		})},
		{ID: 2, Name: "perf", Enabled: true, Config: cfg(func(c *Config) {
			c.RequestAs = "user:perf-bot"
			c.Auto = Auto{Events: []string{"opened", "synchronize"}, Repos: []string{"acme/api*"}, Drafts: true}
		})},
		{ID: 3, Name: "docs", Enabled: true, Config: cfg(func(c *Config) {
			c.Auto = Auto{Events: []string{"opened"}, Paths: []string{"*.md"}}
		})},
		{ID: 4, Name: "old", Enabled: false, Config: cfg(func(c *Config) {
			c.RequestAs = "team:security"
			c.Auto = Auto{Events: AutoEvents}
		})},
		{ID: 5, Name: "style", Enabled: true, Config: Defaults()}, // never automatic
	}
	known := []string{"docs", "perf", "security", "style"}
	pr := PR{Repo: "acme/api", ChangedFiles: []string{"cmd/main.go", "README.md"}}
	p := func(ids ...int) []Picked {
		var out []Picked
		for _, id := range ids {
			for _, r := range reviewers {
				if r.ID == id {
					out = append(out, Picked{ID: id, Name: r.Name})
				}
			}
		}
		return out
	}
	tests := []struct {
		name        string
		trigger     Trigger
		pr          *PR
		repo        RepoConfig
		want        []Picked
		wantUnknown []string
	}{
		{name: "comment review: all enabled without repo defaults",
			trigger: Trigger{Kind: TriggerComment}, want: p(3, 2, 1, 5)},
		{name: "comment review: repo defaults",
			trigger: Trigger{Kind: TriggerComment}, repo: RepoConfig{Reviewers: []string{"security", "docs"}}, want: p(3, 1)},
		{name: "comment review: repo default that is disabled or gone is unknown",
			trigger: Trigger{Kind: TriggerComment}, repo: RepoConfig{Reviewers: []string{"security", "old", "gone"}},
			want: p(1), wantUnknown: []string{"old", "gone"}},
		{name: "comment named",
			trigger: Trigger{Kind: TriggerComment, Names: []string{"perf", "Security", "perf"}}, want: p(2, 1)},
		{name: "comment named unknown and disabled",
			trigger: Trigger{Kind: TriggerComment, Names: []string{"perf", "nope", "old"}},
			want:    p(2), wantUnknown: []string{"nope", "old"}},
		{name: "comment all ignores repo defaults and disabled",
			trigger: Trigger{Kind: TriggerComment, All: true}, repo: RepoConfig{Reviewers: []string{"security"}}, want: p(3, 2, 1, 5)},
		{name: "review request team maps request_as, never a disabled one",
			trigger: Trigger{Kind: TriggerReviewRequest, Team: "security"}, want: p(1)},
		{name: "review request team is case-insensitive",
			trigger: Trigger{Kind: TriggerReviewRequest, Team: "Security"}, want: p(1)},
		{name: "review request user",
			trigger: Trigger{Kind: TriggerReviewRequest, User: "perf-bot"}, want: p(2)},
		{name: "review request user that is a team name picks nobody",
			trigger: Trigger{Kind: TriggerReviewRequest, User: "security"}, want: nil},
		{name: "review request for an unmapped team",
			trigger: Trigger{Kind: TriggerReviewRequest, Team: "frontend"}, want: nil},
		{name: "label chakshu:review takes the defaults",
			trigger: Trigger{Kind: TriggerLabel, Label: "chakshu:review"}, repo: RepoConfig{Reviewers: []string{"perf"}}, want: p(2)},
		{name: "label chakshu:<reviewer>",
			trigger: Trigger{Kind: TriggerLabel, Label: "Chakshu:Docs"}, want: p(3)},
		{name: "label for an unknown reviewer",
			trigger: Trigger{Kind: TriggerLabel, Label: "chakshu:nope"}, want: nil, wantUnknown: []string{"nope"}},
		{name: "other label",
			trigger: Trigger{Kind: TriggerLabel, Label: "bug"}, want: nil},
		{name: "portal named",
			trigger: Trigger{Kind: TriggerPortal, Names: []string{"style"}}, want: p(5)},
		{name: "portal defaults",
			trigger: Trigger{Kind: TriggerPortal}, repo: RepoConfig{Reviewers: []string{"docs"}}, want: p(3)},
		{name: "auto opened: events, repo globs and path globs",
			trigger: Trigger{Kind: TriggerAuto, Event: "opened"}, want: p(3, 2, 1)},
		{name: "auto synchronize",
			trigger: Trigger{Kind: TriggerAuto, Event: "synchronize"}, want: p(2)},
		{name: "auto ready_for_review",
			trigger: Trigger{Kind: TriggerAuto, Event: "ready_for_review"}, want: p(1)},
		{name: "auto unknown event",
			trigger: Trigger{Kind: TriggerAuto, Event: "closed"}, want: nil},
		{name: "auto: repo glob does not match",
			trigger: Trigger{Kind: TriggerAuto, Event: "opened"}, pr: &PR{Repo: "acme/web", ChangedFiles: []string{"a.go"}}, want: p(1)},
		{name: "auto: repo glob is case-insensitive",
			trigger: Trigger{Kind: TriggerAuto, Event: "synchronize"}, pr: &PR{Repo: "Acme/API-v2"}, want: p(2)},
		{name: "auto: path globs must match a changed file",
			trigger: Trigger{Kind: TriggerAuto, Event: "opened"}, pr: &PR{Repo: "acme/api", ChangedFiles: []string{"web/app.ts"}}, want: p(2)},
		{name: "auto: base-name glob matches nested files",
			trigger: Trigger{Kind: TriggerAuto, Event: "opened"}, pr: &PR{Repo: "x/y", ChangedFiles: []string{"docs/guide/intro.md"}}, want: p(3)},
		{name: "auto: drafts skipped unless the reviewer allows them",
			trigger: Trigger{Kind: TriggerAuto, Event: "opened"}, pr: &PR{Repo: "acme/api", Draft: true, ChangedFiles: []string{"a.go", "b.md"}}, want: p(2)},
		{name: "auto: repo drafts override on",
			trigger: Trigger{Kind: TriggerAuto, Event: "opened"}, pr: &PR{Repo: "acme/api", Draft: true, ChangedFiles: []string{"a.go"}},
			repo: RepoConfig{Auto: &RepoAuto{Drafts: &tru}}, want: p(2, 1)},
		{name: "auto: repo drafts override off",
			trigger: Trigger{Kind: TriggerAuto, Event: "opened"}, pr: &PR{Repo: "acme/api", Draft: true, ChangedFiles: []string{"a.go"}},
			repo: RepoConfig{Auto: &RepoAuto{Drafts: &fls}}, want: nil},
		{name: "auto: repo switch off",
			trigger: Trigger{Kind: TriggerAuto, Event: "opened"}, repo: RepoConfig{Auto: &RepoAuto{Enabled: &fls}}, want: nil},
		{name: "auto: repo switch on overrides repo globs and gives event-less reviewers every event",
			trigger: Trigger{Kind: TriggerAuto, Event: "synchronize"}, pr: &PR{Repo: "acme/web", ChangedFiles: []string{"x.txt"}},
			repo: RepoConfig{Auto: &RepoAuto{Enabled: &tru}}, want: p(2, 5)},
		{name: "auto: repo limits reviewers",
			trigger: Trigger{Kind: TriggerAuto, Event: "opened"}, repo: RepoConfig{Auto: &RepoAuto{Reviewers: []string{"security", "old", "gone"}}}, want: p(1)},
		{name: "auto: repo on with reviewers list, path globs still apply",
			trigger: Trigger{Kind: TriggerAuto, Event: "synchronize"}, pr: &PR{Repo: "acme/web", ChangedFiles: []string{"x.txt"}},
			repo: RepoConfig{Auto: &RepoAuto{Enabled: &tru, Reviewers: []string{"style", "security"}}}, want: p(5)},
		{name: "unknown trigger kind", trigger: Trigger{Kind: "other"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := PickInput{Trigger: tt.trigger, PR: pr, Reviewers: reviewers, RepoConfig: tt.repo}
			if tt.pr != nil {
				in.PR = *tt.pr
			}
			got := Pick(in)
			want := PickResult{Reviewers: tt.want, Unknown: tt.wantUnknown, Known: known}
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("Pick (-want +got):\n%s", d)
			}
		})
	}
}

func TestMatchGlob(t *testing.T) {
	for _, tt := range []struct {
		glob, name string
		base, want bool
	}{
		{"**/*.go", "a/b/c.go", false, true},
		{"**/*.go", "c.go", false, true},
		{"*.go", "a/c.go", false, false},
		{"*.go", "a/c.go", true, true},
		{"src/*.go", "a/src/c.go", true, false},
		{"src/**", "src/a/b", true, true},
		{"[", "[", true, false},
		{"{a,b}/x", "b/x", false, true},
	} {
		t.Run(tt.glob+" "+tt.name, func(t *testing.T) {
			if got := MatchGlob(tt.glob, tt.name, tt.base); got != tt.want {
				t.Errorf("MatchGlob(%q, %q, %v) = %v", tt.glob, tt.name, tt.base, got)
			}
		})
	}
}
