package events

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/commands"
	"github.com/chakshu-dev/chakshu/internal/learnings"
	"github.com/chakshu-dev/chakshu/internal/logging"
)

// remember stores the review learning a writer asked for in Chakshu's thread,
// and says what was stored; a non-writer gets one polite refusal.
func (h *handler) remember(ctx context.Context, gc *github.Client, inst *ent.Installation, repo *ent.Repository,
	e *reviewCommentEvent, cmd commands.Command) error {
	c := &e.Comment
	pr, root := e.PullRequest.Number, c.InReplyTo
	login := c.User.Login
	marker := fmt.Sprintf("<!-- chakshu:answer:%d -->", c.ID)
	ok, err := h.canWrite(ctx, gc, repo, login, c.AuthorAssociation)
	if err != nil {
		return err
	}
	if !ok {
		logging.From(ctx).Info("remember asked by a user without write access", "user", login)
		return h.replyOnce(ctx, repo, pr, root, marker, rememberNotAllowedMessage(login))
	}
	if cmd.Directive == "" {
		return h.replyOnce(ctx, repo, pr, root, marker, rememberEmptyMessage(h.cfg.AppSlug))
	}
	glob := learningGlob(c.Path, cmd.Directory)
	l, created, err := learnings.Create(ctx, h.cfg.DB.Client, learnings.New{
		Scope: learnings.ScopeRepo, InstallationID: inst.ID, RepositoryID: repo.ID, Glob: glob, Directive: cmd.Directive,
		Source: learnings.SourceReply, PRNumber: pr, CommentID: c.ID, Author: login,
	})
	if errors.Is(err, learnings.ErrInvalid) {
		return h.replyOnce(ctx, repo, pr, root, marker, rememberInvalidMessage(err.Error()))
	}
	if err != nil {
		return fmt.Errorf("store learning: %w", err)
	}
	logging.From(ctx).Info("learning stored", "learning_id", l.ID, "glob", l.Glob, "user", login, "new", created)
	return h.replyOnce(ctx, repo, pr, root, marker, rememberedMessage(l.Directive, l.Glob))
}
