package runs

import (
	"context"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
)

// CancelMoved cancels run id, in status from, because its pull request moved
// from runHead to prHead (or closed) before the review started (DESIGN §2.4).
// It is the one wording of "PR moved, cancel", at dispatch and at job fetch;
// the reason asks to trigger again, and the worker's finisher puts it on the
// check run. A run no longer in from is ErrConflict.
func CancelMoved(ctx context.Context, db *ent.Client, id int, from run.Status, runHead, prHead string, closed bool, appSlug string) error {
	reason := MovedReason(runHead, prHead, closed, appSlug)
	return Transition(ctx, db, id, Change{
		From: []run.Status{from}, To: run.StatusCancelled, Message: reason,
		Detail: fmt.Sprintf("head %s, run head %s, closed %v", prHead, runHead, closed),
		Set:    func(u *ent.RunUpdate) { u.SetFailureReason(reason) },
	})
}

// MovedReason is the safe sentence of a run cancelled because its pull
// request moved or closed.
func MovedReason(runHead, prHead string, closed bool, appSlug string) string {
	if closed {
		return "The pull request was closed before the review started, so this review was cancelled."
	}
	return fmt.Sprintf("The pull request moved from %s to %s before the review started, so this review was cancelled. "+
		"Comment `@%s review` on the pull request to review the new commit.", short(runHead), short(prHead), appSlug)
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
