package events

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// replyWindow is the window the reply limits (Config.ReplyLimitPerPR,
// Config.ReplyLimitPerUser) count over.
const replyWindow = time.Hour

// mayQueueReply decides whether the author of the reply of e in Chakshu's
// thread may queue a reply run. When they may not, it answers once in the
// thread (the same rule as the review command: write access or the
// allow-list) and returns false. The rate limits are applied as the run is
// queued (reserveReply).
func (h *handler) mayQueueReply(ctx context.Context, gc *github.Client, inst *ent.Installation, repo *ent.Repository,
	e *reviewCommentEvent) (bool, error) {
	c := &e.Comment
	pr, rootID, login := e.PullRequest.Number, c.InReplyTo, c.User.Login
	ok, err := h.canWrite(ctx, gc, repo, login, c.AuthorAssociation)
	if err != nil {
		return false, err
	}
	if !ok {
		// One polite answer per thread, however often or by whom it is asked.
		logging.From(ctx).Info("reply by a user without write access", "user", login)
		marker := fmt.Sprintf("<!-- chakshu:reply-not-allowed:%d -->", rootID)
		return false, h.reply(ctx, repo, pr, rootID, marker, replyNotAllowedMessage(login), true)
	}
	return true, nil
}

// replyRefusal is a reply run the rate limits refused: which limit (0 per
// PR, 1 per user), and when the oldest counted run leaves the window.
type replyRefusal struct {
	which int
	limit int
	retry time.Time
}

// reserveReply counts the reply runs of the last hour against the limits
// (per PR of repo, per login across inst) and, when both leave room, runs
// insert, in one transaction: two replies handled at once cannot both pass
// at limit-1. On PostgreSQL the installation's row is locked first (the
// counts of one installation take turns); SQLite's transactions are
// IMMEDIATE, one writer at a time.
// commentID's run, if it exists already (a redelivered reply), is neither
// counted against itself nor inserted again.
func reserveReply(ctx context.Context, db *store.DB, inst *ent.Installation, repo *ent.Repository, pr int, login string, commentID int64,
	limits [2]int, now time.Time, insert func(tx *ent.Tx) error) (*replyRefusal, error) {
	var refused *replyRefusal
	err := db.WithTx(ctx, func(tx *ent.Tx) error {
		refused = nil
		if err := tx.Installation.Update().Where(installation.ID(inst.ID)).AddSecondaryHits(0).Exec(ctx); err != nil {
			return fmt.Errorf("lock the installation: %w", err)
		}
		if done, err := tx.Run.Query().Where(run.ReplyToCommentID(commentID), run.HasRepositoryWith(repository.ID(repo.ID))).Exist(ctx); err != nil || done {
			return err
		}
		since := now.Add(-replyWindow)
		recent := []*ent.RunQuery{
			tx.Run.Query().Where(run.KindEQ(run.KindReply), run.CreatedAtGT(since),
				run.HasRepositoryWith(repository.ID(repo.ID)), run.PrNumber(pr)),
			tx.Run.Query().Where(run.KindEQ(run.KindReply), run.CreatedAtGT(since), run.RequesterEqualFold(login),
				run.HasRepositoryWith(repository.HasInstallationWith(installation.ID(inst.ID)))),
		}
		for i, q := range recent {
			rs, err := q.Order(ent.Desc(run.FieldCreatedAt)).Limit(limits[i]).All(ctx)
			if err != nil {
				return fmt.Errorf("count recent reply runs: %w", err)
			}
			if len(rs) < limits[i] {
				continue
			}
			// The oldest of the last limit runs leaves the window first.
			refused = &replyRefusal{which: i, limit: limits[i],
				retry: rs[len(rs)-1].CreatedAt.Add(replyWindow).UTC().Truncate(time.Minute).Add(time.Minute)}
			return nil
		}
		return insert(tx)
	})
	return refused, err
}

// refuseReply answers the reply that the rate limit refused, once per
// thread, limit and retry time.
func (h *handler) refuseReply(ctx context.Context, repo *ent.Repository, pr int, rootID int64, login string, r *replyRefusal) error {
	logging.From(ctx).Info("reply run refused by the rate limit", "user", login, "per", []string{"pr", "user"}[r.which], "limit", r.limit)
	marker := fmt.Sprintf("<!-- chakshu:reply-limit:%d:%s:%d -->", rootID, safeMarker(strings.ToLower(login)), r.retry.Unix())
	return h.reply(ctx, repo, pr, rootID, marker, replyLimitMessage(login, r.which == 0, r.limit, r.retry), true)
}
