package events

import (
	"context"
	"slices"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
)

// picked is the reviewers a trigger runs, as stored rows.
type picked struct {
	Reviewers []*ent.Reviewer
	// Unknown are names asked for that no enabled reviewer has; Known are the enabled ones.
	Unknown, Known []string
}

// pick runs reviewers.Pick for trigger t on a PR of repoFullName. The PR's
// files are listed (files) only when an auto review's path globs need them.
func pick(ctx context.Context, all []*ent.Reviewer, rc reviewers.RepoConfig, repoFullName string, t reviewers.Trigger,
	draft bool, files func(context.Context) ([]string, error)) (picked, error) {
	cands := reviewers.CandidatesFromEnt(all)
	in := reviewers.PickInput{Trigger: t, PR: reviewers.PR{Repo: repoFullName, Draft: draft}, Reviewers: cands, RepoConfig: rc}
	if t.Kind == reviewers.TriggerAuto && files != nil &&
		slices.ContainsFunc(cands, func(c reviewers.Candidate) bool { return len(c.Config.Auto.Paths) > 0 }) {
		fs, err := files(ctx)
		if err != nil {
			return picked{}, err
		}
		in.PR.ChangedFiles = fs
	}
	res := reviewers.Pick(in)
	byID := make(map[int]*ent.Reviewer, len(all))
	for _, r := range all {
		byID[r.ID] = r
	}
	out := picked{Unknown: res.Unknown, Known: res.Known}
	for _, p := range res.Reviewers {
		if r := byID[p.ID]; r != nil {
			out.Reviewers = append(out.Reviewers, r)
		}
	}
	return out, nil
}

func names(rs []*ent.Reviewer) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}
