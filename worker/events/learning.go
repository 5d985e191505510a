package events

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/reviewlearning"
	"github.com/chakshu-dev/chakshu/internal/commands"
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
		h.log.Info("remember asked by a user without write access", "user", login)
		return h.replyOnce(ctx, gc, repo, pr, root, marker, rememberNotAllowedMessage(login))
	}
	if cmd.Directive == "" {
		return h.replyOnce(ctx, gc, repo, pr, root, marker, rememberEmptyMessage(h.cfg.AppSlug))
	}
	glob := learningGlob(c.Path, cmd.Directory)
	err = h.cfg.DB.ReviewLearning.Create().SetScope(reviewlearning.ScopeRepo).SetGlob(glob).SetDirective(cmd.Directive).
		SetDedupeKey(DedupeKey(reviewlearning.ScopeRepo, inst.ID, repo.ID, glob, cmd.Directive)).
		SetAuthor(login).SetPrNumber(pr).SetCommentID(c.ID).SetSource("reply").
		SetInstallation(inst).SetRepository(repo).
		OnConflictColumns(reviewlearning.FieldDedupeKey).UpdateEnabled().Exec(ctx) // the same directive again: enable it
	if err != nil {
		return fmt.Errorf("store learning: %w", err)
	}
	h.log.Info("learning stored", "glob", glob, "user", login)
	return h.replyOnce(ctx, gc, repo, pr, root, marker, rememberedMessage(cmd.Directive, glob))
}

// DedupeKey identifies a learning: sha256 of scope|installation|repository|glob|directive
// (installation and repository are database ids; repository is 0 for installation scope).
func DedupeKey(scope reviewlearning.Scope, installationID, repositoryID int, glob, directive string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|%d|%d|%s|%s", scope, installationID, repositoryID, glob, directive))
	return hex.EncodeToString(sum[:])
}
