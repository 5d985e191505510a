package events

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/outcomes"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/reviewrequest"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
)

// pullRequest handles automatic reviews, review requests, labels and closing.
func (h *handler) pullRequest(ctx context.Context) error {
	var e pullRequestEvent
	if err := h.decode(&e); err != nil {
		return err
	}
	ctx = logging.Add(ctx, "pr", e.PullRequest.Number)
	if err := h.reviewerChange(ctx, &e); err != nil {
		return err
	}
	switch a := e.Action; a {
	case "synchronize":
		if err := h.cancelSuperseded(ctx, &e, false); err != nil {
			return err
		}
		return h.prTrigger(ctx, &e, run.TriggerAuto, reviewerconfig.Trigger{Kind: reviewerconfig.TriggerAuto, Event: a}, "")
	case "opened", "ready_for_review":
		return h.prTrigger(ctx, &e, run.TriggerAuto, reviewerconfig.Trigger{Kind: reviewerconfig.TriggerAuto, Event: a}, "")
	case "review_requested":
		t := reviewerconfig.Trigger{Kind: reviewerconfig.TriggerReviewRequest, Team: e.RequestedTeam.Slug, User: e.RequestedReviewer.Login}
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
		if !strings.HasPrefix(strings.ToLower(e.Label.Name), reviewerconfig.LabelPrefix) {
			return nil
		}
		return h.prTrigger(ctx, &e, run.TriggerLabel, reviewerconfig.Trigger{Kind: reviewerconfig.TriggerLabel, Label: e.Label.Name}, "")
	case "closed":
		return h.prClosed(ctx, &e)
	case "reopened":
		return h.prReopened(ctx, &e)
	default:
		return nil
	}
}

// prTrigger queues the reviewers t picks on the PR's head.
func (h *handler) prTrigger(ctx context.Context, e *pullRequestEvent, trigger run.Trigger, t reviewerconfig.Trigger, target string) error {
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
	// A label is added by whoever holds the triage role or more, which is
	// not write (GitHub's repository roles): a label asks like a review
	// command, under the command's rule (issue 43 item 6). Pushes, opening
	// and review requests are GitHub's own events and stay trusted.
	out, err := h.requests.Request(ctx, reviewrequest.Request{Repo: repo, Inst: inst, GitHub: gc, Trusted: trigger != run.TriggerLabel,
		Login: requester(e.Sender, trigger), PR: pr.asPR(), Trigger: t, RunTrigger: trigger, Target: target,
		Files: reviewrequest.ChangedFiles(gc, repo, pr.Number), InvalidConfig: h.reportConfig(repo, pr.Number)})
	if refused(err) {
		return nil
	}
	if errors.Is(err, reviewrequest.ErrNotAllowed) {
		logging.From(ctx).Info("label by a user without write access ignored", "sender", e.Sender.Login, "label", e.Label.Name)
		return nil
	}
	if err == nil && !out.NoReviewers {
		logging.From(ctx).Info("runs queued", "trigger", trigger, "created", len(out.Created), "skipped", len(out.Skipped))
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

// prClosed cancels the PR's runs that have not reached publishing and
// decides what became of its open findings (merged or closed unmerged).
func (h *handler) prClosed(ctx context.Context, e *pullRequestEvent) error {
	if err := h.cancelSuperseded(ctx, e, true); err != nil {
		return err
	}
	return h.closedOutcomes(ctx, e)
}

// prReopened: findings that were "closed unmerged" are open again.
func (h *handler) prReopened(ctx context.Context, e *pullRequestEvent) error {
	if e.Repository == nil {
		return nil
	}
	repoID, err := h.cfg.DB.Repository.Query().Where(repository.GithubID(e.Repository.ID)).OnlyID(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return h.outcomes.Reopened(ctx, repoID, e.PullRequest.Number)
}

// closedOutcomes reads the closed PR's threads once and records its open
// findings' outcomes (no GitHub call when none is open). A failed read fails
// the event, whose retry reads again.
func (h *handler) closedOutcomes(ctx context.Context, e *pullRequestEvent) error {
	if e.Repository == nil {
		return nil
	}
	repo, err := h.cfg.DB.Repository.Query().Where(repository.GithubID(e.Repository.ID)).WithInstallation().Only(ctx)
	if ent.IsNotFound(err) {
		return nil // never seen: nothing of it posted
	}
	if err != nil {
		return err
	}
	inst, err := h.cfg.GitHub.Installation(repo.Edges.Installation.GithubID)
	if err != nil {
		return fmt.Errorf("github client for installation %d: %w", repo.Edges.Installation.GithubID, err)
	}
	return h.outcomes.AtClose(ctx, inst, outcomes.Closed{Repo: repo, PR: e.PullRequest.Number,
		Merged: e.PullRequest.Merged, Head: e.PullRequest.Head.SHA})
}

// cancelSuperseded cancels the PR's runs for an older head (a push), or all
// of them not yet publishing (closed); the finisher cancels their Actions
// runs and completes their check runs.
func (h *handler) cancelSuperseded(ctx context.Context, e *pullRequestEvent, closed bool) error {
	if e.Repository == nil {
		return nil
	}
	repoID, err := h.cfg.DB.Repository.Query().Where(repository.GithubID(e.Repository.ID)).OnlyID(ctx)
	if ent.IsNotFound(err) {
		return nil // never seen: nothing of it queued
	}
	if err != nil {
		return err
	}
	n, err := runstate.CancelSuperseded(ctx, h.cfg.DB.Client, repoID, e.PullRequest.Number, e.PullRequest.Head.SHA, closed, h.cfg.AppSlug)
	if n > 0 {
		logging.From(ctx).Info("runs cancelled: pull request closed or pushed to", "runs", n, "closed", closed)
		if h.cfg.Bus != nil {
			h.cfg.Bus.Notify(ctx, wakeup.TopicFinish) //nolint:errcheck // the finisher polls too
		}
	}
	return err
}
