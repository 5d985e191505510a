package events

import (
	"context"
	"errors"
	"strings"

	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/notify"
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
		return h.prTrigger(ctx, &e, run.TriggerAuto, choice{Auto: a, Draft: e.PullRequest.Draft}, "")
	case "review_requested":
		target := ""
		switch {
		case e.RequestedTeam.Slug != "":
			target = "team:" + e.RequestedTeam.Slug
		case e.RequestedReviewer.Login != "":
			target = "user:" + e.RequestedReviewer.Login
		default:
			return nil
		}
		return h.prTrigger(ctx, &e, run.TriggerReviewRequest, choice{RequestTarget: target}, target)
	case "labeled":
		name, ok := strings.CutPrefix(strings.ToLower(e.Label.Name), "chakshu:")
		if !ok || name == "" {
			return nil
		}
		c := choice{} // chakshu:review → the repository's default reviewers
		if name != "review" {
			c.Names = []string{name}
		}
		return h.prTrigger(ctx, &e, run.TriggerLabel, c, "")
	case "closed":
		return h.prClosed(ctx, &e)
	default:
		return nil
	}
}

// prTrigger queues the reviewers c picks on the PR's head.
func (h *handler) prTrigger(ctx context.Context, e *pullRequestEvent, trigger run.Trigger, c choice, target string) error {
	pr := &e.PullRequest
	if pr.State != "open" {
		return nil
	}
	inst, repo, err := h.repoOf(ctx, &e.common)
	if err != nil {
		return err
	}
	all, err := h.enabledReviewers(ctx, inst)
	if err != nil || len(all) == 0 {
		return err // no reviewers: nothing to read or queue
	}
	gc, err := h.client(inst.GithubID)
	if err != nil {
		return err
	}
	var rc reviewers.RepoConfig
	if c.RequestTarget == "" { // review requests map to reviewers by reviewer.yaml alone
		if rc, err = h.repoConfig(ctx, gc, repo, pr.Number); err != nil {
			return err
		}
		c.Files = prFiles(gc, repo, pr.Number)
	}
	p, err := pick(ctx, all, rc, repo.FullName, c)
	if err != nil {
		return err
	}
	_, err = h.queue(ctx, repo, pr, p.Reviewers, trigger, requester(e.Sender, trigger), "", target)
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
		if h.cfg.Bus != nil {
			h.cfg.Bus.Notify(ctx, notify.TopicRunUpdated) //nolint:errcheck
		}
	}
	return nil
}
