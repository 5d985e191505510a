package events

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/commands"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/reviewrequest"
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
	ctx = logging.Add(ctx, "pr", number)
	all, err := reviewrequest.EnabledReviewers(ctx, h.cfg.DB.Client, inst)
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
	out, err := h.requests.Request(ctx, reviewrequest.Request{Repo: repo, Inst: inst, GitHub: gc,
		Login: login, Association: c.AuthorAssociation, Number: number,
		Trigger:    reviewerconfig.Trigger{Kind: reviewerconfig.TriggerComment, Names: cmd.Names, All: cmd.All},
		RunTrigger: run.TriggerComment, Note: cmd.Note, InvalidConfig: h.reportConfig(repo, number)})
	switch {
	case errors.Is(err, reviewrequest.ErrNotAllowed):
		// One polite answer per person and pull request, however often they ask.
		logging.From(ctx).Info("review asked by a user without write access", "user", login)
		once := fmt.Sprintf("<!-- chakshu:not-allowed:%s -->", safeMarker(strings.ToLower(login)))
		return h.comment(ctx, repo, number, once, notAllowedMessage(login), true)
	case refused(err):
		return nil
	case err != nil:
		return err
	}
	logging.From(ctx).Info("runs queued", "trigger", run.TriggerComment, "created", len(out.Created), "skipped", len(out.Skipped))
	switch {
	case len(out.Unknown) > 0:
		return h.commentOnce(ctx, repo, number, marker, unknownReviewersMessage(out.Unknown, out.Known, len(out.Created)+len(out.Skipped)))
	case len(out.Picked.Reviewers) == 0:
		return h.commentOnce(ctx, repo, number, marker, noReviewersMessage())
	}
	return nil
}
