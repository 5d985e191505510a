package events

import (
	"context"
	"fmt"
	"strings"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/commands"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
)

// issueComment handles commands in PR conversation comments (DESIGN §2.1).
// Edits and deletions queue nothing, nor do comments by bots.
func (h *handler) issueComment(ctx context.Context) error {
	var e issueCommentEvent
	if err := h.decode(&e); err != nil {
		return err
	}
	switch e.Action {
	case "created":
		return h.commentCreated(ctx, &e)
	default:
		return nil
	}
}

func (h *handler) commentCreated(ctx context.Context, e *issueCommentEvent) error {
	c := e.Comment
	if e.Issue.PullRequest == nil || isBot(c.User) {
		return nil
	}
	cmd, ok := commands.Parse(c.Body, h.cfg.AppSlug)
	if !ok {
		return nil
	}
	inst, repo, err := h.repoOf(ctx, &e.common)
	if err != nil {
		return err
	}
	number, login := e.Issue.Number, c.User.Login
	h.log = h.log.With("pr", number)
	all, err := h.enabledReviewers(ctx, inst)
	if err != nil {
		return err
	}
	gc, err := h.client(inst.GithubID)
	if err != nil {
		return err
	}
	marker := fmt.Sprintf("<!-- chakshu:answer:%d -->", c.ID)
	switch cmd.Verb {
	case commands.Help:
		return h.commentOnce(ctx, repo, number, marker, helpMessage(h.cfg.AppSlug, names(all)))
	case commands.Unknown:
		return h.commentOnce(ctx, repo, number, marker, unknownCommandMessage(h.cfg.AppSlug, cmd.Word, names(all)))
	case commands.Remember:
		return h.commentOnce(ctx, repo, number, marker,
			fmt.Sprintf("`@%s remember` works in a reply to one of my review comments, so I know which file it is about.", h.cfg.AppSlug))
	case commands.Review:
	default:
		return nil
	}
	ok, err = h.canWrite(ctx, gc, repo, login, c.AuthorAssociation)
	if err != nil {
		return err
	}
	if !ok {
		// One polite answer per person and pull request, however often they ask.
		h.log.Info("review asked by a user without write access", "user", login)
		once := fmt.Sprintf("<!-- chakshu:not-allowed:%s -->", safeMarker(strings.ToLower(login)))
		return h.comment(ctx, repo, number, once, notAllowedMessage(login), true)
	}
	pr, err := getPR(ctx, gc, repo, number)
	if err != nil {
		return err
	}
	if pr.State != "open" {
		return nil
	}
	rc, err := h.repoConfig(ctx, gc, repo, number)
	if err != nil {
		return err
	}
	p, err := pick(ctx, all, rc, repo.FullName, reviewers.Trigger{Kind: reviewers.TriggerComment, Names: cmd.Names, All: cmd.All}, pr.Draft, nil)
	if err != nil {
		return err
	}
	q, err := h.queue(ctx, repo, pr, p.Reviewers, run.TriggerComment, login, cmd.Note, "")
	if err != nil {
		return err
	}
	switch {
	case len(p.Unknown) > 0:
		return h.commentOnce(ctx, repo, number, marker, unknownReviewersMessage(p.Unknown, p.Known, len(q.Created)+q.Skipped))
	case len(p.Reviewers) == 0:
		return h.commentOnce(ctx, repo, number, marker, noReviewersMessage())
	}
	return nil
}
