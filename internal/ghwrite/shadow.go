package ghwrite

import (
	"context"
	"errors"
)

// ErrShadow refuses a write on a pull request for a shadow run.
var ErrShadow = errors.New("ghwrite: a shadow run writes nothing on the pull request it reviews")

type shadowKey struct{}

// ForShadowRun marks ctx as acting for a shadow run (a backtest's replay of a
// reviewer over a PR reviewed before). The port then refuses every write
// that touches a pull request — check runs, reviews, comments, replies,
// thread resolution, review requests — with ErrShadow; only starting the
// workflow (Dispatch) and cancelling it (CancelActionsRun), which act on the
// repository's Actions and not on the PR, go through. The consumers skip
// those writes for a shadow run themselves; this is the one place that
// makes sure none slips out.
func ForShadowRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, shadowKey{}, true)
}

// IsShadow reports whether ctx acts for a shadow run.
func IsShadow(ctx context.Context) bool {
	v, _ := ctx.Value(shadowKey{}).(bool)
	return v
}

// onPR refuses a write on a pull request for a shadow run.
func onPR(ctx context.Context) error {
	if IsShadow(ctx) {
		return ErrShadow
	}
	return nil
}
