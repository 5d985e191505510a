package ghwrite

import (
	"context"
	"fmt"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
)

// CheckOf names run r's check run. r must carry its repository (with the
// repository's installation) and its reviewer.
func CheckOf(r *ent.Run) Check {
	return Check{Repo: RepoOf(r.Edges.Repository), Name: CheckName(r.Edges.Reviewer.Name, r.Kind == run.KindReply),
		HeadSHA: r.HeadSha, RunID: r.ID, ID: r.CheckRunID}
}

// RepoOf names repo for the port; repo must carry its installation.
func RepoOf(repo *ent.Repository) Repo {
	return Repo{Installation: repo.Edges.Installation.GithubID, Owner: repo.Owner, Name: repo.Name}
}

// CheckCompleter completes check runs; *Port is one.
type CheckCompleter interface {
	CompleteCheck(ctx context.Context, c Check, conclusion string, at time.Time, t Text) error
}

// CompleteRunCheck completes run r's check run with conclusion: the one
// place a run's check is completed, by publishing (the review's result) and
// by the finisher (a failed or cancelled run). A run without a check run has
// nothing to complete, and a check GitHub no longer has counts as completed.
// The caller records check_completed.
func CompleteRunCheck(ctx context.Context, w CheckCompleter, r *ent.Run, conclusion string, at time.Time, t Text) error {
	if r.CheckRunID == 0 {
		return nil
	}
	if err := w.CompleteCheck(ctx, CheckOf(r), conclusion, at, t); err != nil && !IsNotFound(err) {
		return fmt.Errorf("complete check run: %w", err)
	}
	return nil
}
