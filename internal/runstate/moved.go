package runstate

import (
	"context"
	"errors"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
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
		"Comment `@%s review` on the pull request to review the new commit.", gh.ShortSHA(runHead), gh.ShortSHA(prHead), appSlug)
}

// Superseded are the states CancelSuperseded cancels: a run not yet
// publishing. A publishing run has its result and posts it on its own commit.
var Superseded = []run.Status{run.StatusQueued, run.StatusDispatched, run.StatusRunning}

// CancelSuperseded cancels the runs of pull request pr in repository repoID
// that can no longer be of use: when closed, every run not yet publishing;
// otherwise those for another head than newHead (a push superseded them). The
// finisher then cancels their Actions runs and completes their check runs.
// Shadow runs are never superseded. It returns how many it cancelled.
func CancelSuperseded(ctx context.Context, db *ent.Client, repoID, pr int, newHead string, closed bool, appSlug string) (int, error) {
	// Shadow runs (backtests) review an older head of the PR on purpose and
	// post nothing on it: neither a push nor closing the PR cancels them.
	q := db.Run.Query().Where(run.HasRepositoryWith(repository.ID(repoID)), run.PrNumber(pr), run.StatusIn(Superseded...), run.Shadow(false))
	if !closed {
		q.Where(run.HeadShaNEQ(newHead))
	}
	rs, err := q.Select(run.FieldID, run.FieldHeadSha).All(ctx)
	if err != nil {
		return 0, fmt.Errorf("find superseded runs: %w", err)
	}
	n := 0
	for _, r := range rs {
		reason := SupersededReason(r.HeadSha, newHead, closed, appSlug)
		err := Transition(ctx, db, r.ID, Change{
			From: Superseded, To: run.StatusCancelled, Message: reason,
			Detail: fmt.Sprintf("head %s, run head %s, closed %v", newHead, r.HeadSha, closed),
			Set:    func(u *ent.RunUpdate) { u.SetFailureReason(reason) },
		})
		if errors.Is(err, ErrConflict) {
			continue // it moved on meanwhile (publishing, or finished)
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// SupersededReason is the safe sentence of a run cancelled while queued or in
// flight because its pull request was closed or got a new head.
func SupersededReason(runHead, prHead string, closed bool, appSlug string) string {
	if closed {
		return "The pull request was closed, so this review was cancelled."
	}
	return fmt.Sprintf("The pull request moved from %s to %s while this review was waiting or in progress, so it was cancelled. "+
		"The new commit gets its own review when automatic review is on; otherwise comment `@%s review` on the pull request.", gh.ShortSHA(runHead), gh.ShortSHA(prHead), appSlug)
}
