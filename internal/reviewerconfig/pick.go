package reviewerconfig

import (
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/chakshu-dev/chakshu/ent"
)

// TriggerKind is what asked for a review (DESIGN §2.1).
type TriggerKind string

// Trigger kinds.
const (
	// TriggerComment is "@app review", "@app review a b" or "@app review all".
	TriggerComment TriggerKind = "comment"
	// TriggerReviewRequest is a review request for a team or user that a reviewer's request_as maps.
	TriggerReviewRequest TriggerKind = "review_request"
	// TriggerLabel is a label chakshu:review or chakshu:<reviewer>.
	TriggerLabel TriggerKind = "label"
	// TriggerPortal is the portal's "Review this PR".
	TriggerPortal TriggerKind = "portal"
	// TriggerAuto is a PR event: opened, ready_for_review or synchronize.
	TriggerAuto TriggerKind = "auto"
)

// LabelPrefix starts every Chakshu label; LabelReview asks for the default reviewers.
const (
	LabelPrefix = "chakshu:"
	LabelReview = "chakshu:review"
)

// Trigger says what asked for a review.
type Trigger struct {
	Kind TriggerKind
	// Names are the reviewers named by a comment or the portal; empty means the defaults.
	Names []string
	// All is "review all".
	All bool
	// Team (slug) or User (login) whose review was requested.
	Team, User string
	// Label is the label added.
	Label string
	// Event is the PR action for TriggerAuto.
	Event string
}

// Candidate is a stored reviewer as picking sees it.
type Candidate struct {
	ID      int
	Name    string
	Enabled bool
	Config  Config
}

// PR is what picking needs to know of the pull request.
type PR struct {
	// Repo is owner/name.
	Repo  string
	Draft bool
	// ChangedFiles are the paths the PR touches.
	ChangedFiles []string
}

// PickInput is everything Pick looks at.
type PickInput struct {
	Trigger    Trigger
	PR         PR
	Reviewers  []Candidate
	RepoConfig RepoConfig
}

// Picked is one reviewer to queue.
type Picked struct {
	ID   int
	Name string
}

// PickResult is the reviewers to queue, in name order.
type PickResult struct {
	Reviewers []Picked
	// Unknown are names asked for (or listed in chakshu.yml) that are no
	// enabled reviewer; the caller answers with Known.
	Unknown []string
	// Known are the enabled reviewers' names, in order.
	Known []string
}

// Pick chooses the reviewers for a trigger. It is pure: the same input gives
// the same result. Disabled reviewers are never picked.
func Pick(in PickInput) PickResult {
	byName := map[string]Candidate{}
	var res PickResult
	for _, c := range in.Reviewers {
		if c.Enabled {
			byName[c.Name] = c
			res.Known = append(res.Known, c.Name)
		}
	}
	sort.Strings(res.Known)

	var chosen []Candidate
	named := func(names []string) {
		seen := map[string]bool{}
		for _, n := range names {
			n = strings.ToLower(strings.TrimSpace(n))
			if n == "" || seen[n] {
				continue
			}
			seen[n] = true
			if c, ok := byName[n]; ok {
				chosen = append(chosen, c)
			} else {
				res.Unknown = append(res.Unknown, n)
			}
		}
	}
	all := func() {
		for _, n := range res.Known {
			chosen = append(chosen, byName[n])
		}
	}
	defaults := func() {
		if len(in.RepoConfig.Reviewers) > 0 {
			named(in.RepoConfig.Reviewers)
		} else {
			all()
		}
	}

	t := in.Trigger
	switch t.Kind {
	case TriggerComment, TriggerPortal:
		switch {
		case t.All:
			all()
		case len(t.Names) > 0:
			named(t.Names)
		default:
			defaults()
		}
	case TriggerLabel:
		l := strings.ToLower(strings.TrimSpace(t.Label))
		switch {
		case l == LabelReview:
			defaults()
		case strings.HasPrefix(l, LabelPrefix):
			named([]string{strings.TrimPrefix(l, LabelPrefix)})
		}
	case TriggerReviewRequest:
		var want string
		switch {
		case t.Team != "":
			want = "team:" + t.Team
		case t.User != "":
			want = "user:" + t.User
		}
		for _, n := range res.Known {
			if c := byName[n]; want != "" && strings.EqualFold(c.Config.RequestAs, want) {
				chosen = append(chosen, c)
			}
		}
	case TriggerAuto:
		chosen = pickAuto(in, byName, res.Known)
	}

	seen := map[string]bool{}
	for _, c := range chosen {
		if !seen[c.Name] {
			seen[c.Name] = true
			res.Reviewers = append(res.Reviewers, Picked{ID: c.ID, Name: c.Name})
		}
	}
	sort.Slice(res.Reviewers, func(i, j int) bool { return res.Reviewers[i].Name < res.Reviewers[j].Name })
	return res
}

// pickAuto applies the auto rules. The repository's chakshu.yml decides first:
// auto.enabled false turns auto review off; true turns it on for this
// repository whatever the reviewers' repo globs say (a reviewer with no auto
// events then runs on every auto event); auto.reviewers limits who runs;
// auto.drafts overrides each reviewer's drafts setting. A reviewer's path
// globs always apply.
func pickAuto(in PickInput, byName map[string]Candidate, known []string) []Candidate {
	if !contains(AutoEvents, in.Trigger.Event) {
		return nil
	}
	ra := in.RepoConfig.Auto
	if ra == nil {
		ra = &RepoAuto{}
	}
	if ra.Enabled != nil && !*ra.Enabled {
		return nil
	}
	repoOn := ra.Enabled != nil && *ra.Enabled
	names := known
	if len(ra.Reviewers) > 0 {
		names = ra.Reviewers
	}
	var out []Candidate
	for _, n := range names {
		c, ok := byName[n]
		if !ok {
			continue
		}
		a := c.Config.Auto
		events := a.Events
		if len(events) == 0 && repoOn {
			events = AutoEvents
		}
		if !contains(events, in.Trigger.Event) {
			continue
		}
		if !repoOn && len(a.Repos) > 0 && !matchRepo(a.Repos, in.PR.Repo) {
			continue
		}
		drafts := a.Drafts
		if ra.Drafts != nil {
			drafts = *ra.Drafts
		}
		if in.PR.Draft && !drafts {
			continue
		}
		if len(a.Paths) > 0 && !anyFileMatches(a.Paths, in.PR.ChangedFiles) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// matchRepo matches owner/name against repo globs; GitHub names are case-insensitive.
func matchRepo(globs []string, repo string) bool {
	for _, g := range globs {
		if MatchGlob(strings.ToLower(g), strings.ToLower(repo), false) {
			return true
		}
	}
	return false
}

func anyFileMatches(globs, files []string) bool {
	for _, f := range files {
		if matchAny(globs, f, true) {
			return true
		}
	}
	return false
}

// matchAny reports whether s matches one of globs. With base, a glob without
// a slash also matches a file's base name, so "*.go" matches "cmd/main.go".
func matchAny(globs []string, s string, base bool) bool {
	for _, g := range globs {
		if MatchGlob(g, s, base) {
			return true
		}
	}
	return false
}

// MatchGlob reports whether name matches glob (doublestar syntax). With
// base, a glob without a slash also matches name's last element, so "*.go"
// matches "cmd/main.go" as in .gitignore. An invalid glob matches nothing.
func MatchGlob(glob, name string, base bool) bool {
	if ok, err := doublestar.Match(glob, name); err == nil && ok {
		return true
	}
	if base && !strings.Contains(glob, "/") {
		ok, err := doublestar.Match(glob, path.Base(name))
		return err == nil && ok
	}
	return false
}

// CandidatesFromEnt turns stored reviewers into Pick's input. A reviewer
// (a stored config that cannot be read fails the query that loads it).
func CandidatesFromEnt(rs []*ent.Reviewer) []Candidate {
	out := make([]Candidate, 0, len(rs))
	for _, r := range rs {
		out = append(out, Candidate{ID: r.ID, Name: r.Name, Enabled: r.Enabled, Config: FromEnt(r)})
	}
	return out
}
