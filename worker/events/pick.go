package events

import (
	"context"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
)

// choice is what a trigger asks for, for pick.
type choice struct {
	// Names are reviewers asked for by name (comment, label, rerequest); empty
	// with All false means the repository's default reviewers.
	Names []string
	All   bool
	// Auto is the pull_request action of an automatic review ("" otherwise).
	Auto  string
	Draft bool
	// Files lists the PR's changed files (only called when a path glob needs it).
	Files func(ctx context.Context) ([]string, error)
	// RequestTarget is "team:<slug>" or "user:<login>" for a review request.
	RequestTarget string
}

// picked is pick's answer.
type picked struct {
	Reviewers []*ent.Reviewer
	// Unknown are names asked for that no enabled reviewer has.
	Unknown []string
}

// pick chooses the reviewers a trigger runs. It is the one place where the
// selection lives until reviewers.Pick replaces it.
func pick(ctx context.Context, all []*ent.Reviewer, rc reviewers.RepoConfig, repoFullName string, c choice) (picked, error) {
	byName := map[string]*ent.Reviewer{}
	for _, r := range all {
		byName[strings.ToLower(r.Name)] = r
	}
	var out picked
	switch {
	case c.All:
		out.Reviewers = all
	case len(c.Names) > 0:
		for _, n := range c.Names {
			if r, ok := byName[strings.ToLower(n)]; ok {
				out.Reviewers = appendOnce(out.Reviewers, r)
			} else {
				out.Unknown = append(out.Unknown, n)
			}
		}
	case c.RequestTarget != "":
		for _, r := range all {
			cfg, err := reviewers.FromEnt(r)
			if err == nil && cfg.RequestAs != "" && strings.EqualFold(cfg.RequestAs, c.RequestTarget) {
				out.Reviewers = append(out.Reviewers, r)
			}
		}
	case c.Auto != "":
		var files []string
		for _, r := range all {
			ok, err := autoRuns(ctx, r, rc, repoFullName, c, &files)
			if err != nil {
				return picked{}, err
			}
			if ok {
				out.Reviewers = append(out.Reviewers, r)
			}
		}
	default: // the repository's default reviewers
		if len(rc.Reviewers) == 0 {
			out.Reviewers = all
			break
		}
		for _, n := range rc.Reviewers {
			if r, ok := byName[strings.ToLower(n)]; ok {
				out.Reviewers = appendOnce(out.Reviewers, r)
			}
		}
	}
	return out, nil
}

func autoRuns(ctx context.Context, r *ent.Reviewer, rc reviewers.RepoConfig, repoFullName string, c choice, files *[]string) (bool, error) {
	cfg, err := reviewers.FromEnt(r)
	if err != nil {
		return false, nil // a reviewer whose stored config does not read runs only when asked
	}
	auto := cfg.Auto
	drafts := auto.Drafts
	events := auto.Events
	if ra := rc.Auto; ra != nil {
		if ra.Enabled != nil && !*ra.Enabled {
			return false, nil
		}
		if ra.Drafts != nil {
			drafts = *ra.Drafts
		}
		if len(ra.Reviewers) > 0 {
			if !slices.ContainsFunc(ra.Reviewers, func(n string) bool { return strings.EqualFold(n, r.Name) }) {
				return false, nil
			}
			if len(events) == 0 { // named by the repo: runs on every auto event
				events = []string{"opened", "ready_for_review", "synchronize"}
			}
		}
	}
	if !slices.Contains(events, c.Auto) || (c.Draft && !drafts) {
		return false, nil
	}
	if len(auto.Repos) > 0 && !slices.ContainsFunc(auto.Repos, func(g string) bool {
		ok, _ := doublestar.Match(strings.ToLower(g), strings.ToLower(repoFullName))
		return ok
	}) {
		return false, nil
	}
	if len(auto.Paths) == 0 {
		return true, nil
	}
	if *files == nil && c.Files != nil {
		fs, err := c.Files(ctx)
		if err != nil {
			return false, err
		}
		*files = append(fs, "") // non-nil even when empty
	}
	for _, f := range *files {
		for _, g := range auto.Paths {
			if ok, _ := doublestar.Match(g, f); ok && f != "" {
				return true, nil
			}
		}
	}
	return false, nil
}

func appendOnce(rs []*ent.Reviewer, r *ent.Reviewer) []*ent.Reviewer {
	for _, x := range rs {
		if x.ID == r.ID {
			return rs
		}
	}
	return append(rs, r)
}

func names(rs []*ent.Reviewer) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}
