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
)

// replyWindow is the window the reply limits (Config.ReplyLimitPerPR,
// Config.ReplyLimitPerUser) count over.
const replyWindow = time.Hour

// mayQueueReply decides whether the reply of e in Chakshu's thread may
// queue a reply run. When it may not, it answers once in the thread (the
// same rule as the review command: write access or the allow-list) or says
// when the rate limit lets them try again, and returns false.
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
	// A redelivered reply that already has its run is not counted against itself.
	if done, err := h.cfg.DB.Run.Query().Where(run.ReplyToCommentID(c.ID), run.HasRepositoryWith(repository.ID(repo.ID))).Exist(ctx); err != nil || done {
		return done, err
	}
	since := h.cfg.Now().Add(-replyWindow)
	recent := []*ent.RunQuery{
		h.cfg.DB.Run.Query().Where(run.KindEQ(run.KindReply), run.CreatedAtGT(since),
			run.HasRepositoryWith(repository.ID(repo.ID)), run.PrNumber(pr)),
		h.cfg.DB.Run.Query().Where(run.KindEQ(run.KindReply), run.CreatedAtGT(since), run.RequesterEqualFold(login),
			run.HasRepositoryWith(repository.HasInstallationWith(installation.ID(inst.ID)))),
	}
	limits := []int{h.cfg.ReplyLimitPerPR, h.cfg.ReplyLimitPerUser}
	for i, q := range recent {
		rs, err := q.Order(ent.Desc(run.FieldCreatedAt)).Limit(limits[i]).All(ctx)
		if err != nil {
			return false, fmt.Errorf("count recent reply runs: %w", err)
		}
		if len(rs) < limits[i] {
			continue
		}
		// The oldest of the last limit runs leaves the window first.
		retry := rs[len(rs)-1].CreatedAt.Add(replyWindow).UTC().Truncate(time.Minute).Add(time.Minute)
		logging.From(ctx).Info("reply run refused by the rate limit", "user", login, "per", []string{"pr", "user"}[i], "limit", limits[i])
		marker := fmt.Sprintf("<!-- chakshu:reply-limit:%d:%s:%d -->", rootID, safeMarker(strings.ToLower(login)), retry.Unix())
		return false, h.reply(ctx, repo, pr, rootID, marker, replyLimitMessage(login, i == 0, limits[i], retry), true)
	}
	return true, nil
}
