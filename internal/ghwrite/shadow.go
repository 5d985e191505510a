package ghwrite

import (
	"context"
	"errors"

	"github.com/chakshu-dev/chakshu/ent"
)

// ErrShadow refuses a write on a pull request for a shadow run.
var ErrShadow = errors.New("ghwrite: a shadow run writes nothing on the pull request it reviews")

type shadowKey struct{}

// ForRun marks ctx as acting for run r. This is the one place that decides
// what a run may write: for a shadow run (a backtest's replay of a reviewer
// over a PR reviewed before) the port refuses every write that touches a
// pull request — check runs, reviews, comments, replies, thread resolution,
// review requests — with ErrShadow; only starting the workflow (Dispatch)
// and cancelling it (CancelActionsRun), which act on the repository's
// Actions and not on the PR, go through. Callers ask WritesOnPR before a
// step that exists only to write on the PR, instead of looking at the run.
func ForRun(ctx context.Context, r *ent.Run) context.Context {
	if !r.Shadow {
		return ctx
	}
	return context.WithValue(ctx, shadowKey{}, true)
}

// WritesOnPR reports whether ctx's run may write on its pull request (false
// for a shadow run, ForRun): the question a caller asks before opening a
// check run, completing one or publishing a review.
func WritesOnPR(ctx context.Context) bool {
	v, _ := ctx.Value(shadowKey{}).(bool)
	return !v
}

// onPR refuses a write on a pull request for a shadow run.
func onPR(ctx context.Context) error {
	if !WritesOnPR(ctx) {
		return ErrShadow
	}
	return nil
}
