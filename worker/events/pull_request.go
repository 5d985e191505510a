package events

import (
	"context"
	"errors"
	"strings"

	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/review"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
	"github.com/chakshu-dev/chakshu/internal/runs"
)

// pullRequest handles automatic reviews, review requests, labels and closing.
func (h *handler) pullRequest(ctx context.Context) error {
	var e pullRequestEvent
	if err := h.decode(&e); err != nil {
		return err
	}
	h.log = h.log.With("pr", e.PullRequest.Number)
	switch a := e.Action; a {
	case "opened", "ready_for_review", "synchronize":
		return h.prTrigger(ctx, &e, run.TriggerAuto, reviewers.Trigger{Kind: reviewers.TriggerAuto, Event: a}, "")
	case "review_requested":
		t := reviewers.Trigger{Kind: reviewers.TriggerReviewRequest, Team: e.RequestedTeam.Slug, User: e.RequestedReviewer.Login}
		target := ""
		switch {
		case t.Team != "":
			target, t.User = "team:"+t.Team, ""
		case t.User != "":
			target = "user:" + t.User
		default:
			return nil
		}
		return h.prTrigger(ctx, &e, run.TriggerReviewRequest, t, target)
	case "labeled":
		if !strings.HasPrefix(strings.ToLower(e.Label.Name), reviewers.LabelPrefix) {
			return nil
		}
		return h.prTrigger(ctx, &e, run.TriggerLabel, reviewers.Trigger{Kind: reviewers.TriggerLabel, Label: e.Label.Name}, "")
	case "closed":
		return h.prClosed(ctx, &e)
	default:
		return nil
	}
}

// prTrigger queues the reviewers t picks on the PR's head.
func (h *handler) prTrigger(ctx context.Context, e *pullRequestEvent, trigger run.Trigger, t reviewers.Trigger, target string) error {
	pr := &e.PullRequest
	if pr.State != "open" {
		return nil
	}
	inst, repo, err := h.repoOf(ctx, &e.common)
	if err != nil {
		return err
	}
	gc, err := h.client(inst.GithubID)
	if err != nil {
		return err
	}
	out, err := h.requests.Request(ctx, review.Request{Repo: repo, Inst: inst, GitHub: gc, Trusted: true,
		Login: requester(e.Sender, trigger), PR: pr.asPR(), Trigger: t, RunTrigger: trigger, Target: target,
		Files: review.ChangedFiles(gc, repo, pr.Number), InvalidConfig: h.reportConfig(repo, pr.Number)})
	if refused(err) {
		return nil
	}
	if err == nil && !out.NoReviewers {
		h.log.Info("runs queued", "trigger", trigger, "created", len(out.Created), "skipped", len(out.Skipped))
	}
	return err
}

// requester is who asked: the sender, except for automatic reviews.
func requester(sender user, t run.Trigger) string {
	if t == run.TriggerAuto {
		return ""
	}
	return sender.Login
}

// prClosed cancels the PR's queued runs.
func (h *handler) prClosed(ctx context.Context, e *pullRequestEvent) error {
	if e.Repository == nil {
		return nil
	}
	ids, err := h.cfg.DB.Run.Query().Where(run.PrNumber(e.PullRequest.Number), run.StatusEQ(run.StatusQueued),
		run.HasRepositoryWith(repository.GithubID(e.Repository.ID))).IDs(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		err := runs.Transition(ctx, h.cfg.DB.Client, id, runs.Change{
			From: []run.Status{run.StatusQueued}, To: run.StatusCancelled,
			Message: "The pull request was closed before the review started.",
		})
		if err != nil && !errors.Is(err, runs.ErrConflict) {
			return err
		}
	}
	if len(ids) > 0 {
		h.log.Info("queued runs cancelled: PR closed", "runs", len(ids))
	}
	return nil
}
