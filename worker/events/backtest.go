package events

import (
	"context"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/backtest"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
)

// reviewerChange backtests a pull request into the default branch of the
// installation's reviewers repository that changes reviewers (issue 25): a
// push queues one backtest per changed reviewer and supersedes those of the older head; closing
// cancels them. Other pull requests are not its business.
func (h *handler) reviewerChange(ctx context.Context, e *pullRequestEvent) error {
	closed := false
	switch e.Action {
	case "opened", "synchronize", "reopened":
	case "closed":
		closed = true
	default:
		return nil
	}
	inst, err := h.reviewersRepoOf(ctx, &e.common)
	if inst == nil || err != nil {
		return err
	}
	pr := &e.PullRequest
	if !closed && pr.State != "open" {
		return nil
	}
	if def := e.Repository.DefaultBranch; !closed && def != "" && pr.Base.Ref != def {
		return nil // merging it changes no reviewer in force
	}
	gc, err := h.client(inst.GithubID)
	if err != nil {
		return err
	}
	out, err := backtest.Request(ctx, h.cfg.DB, h.cfg.Bus, gc, backtest.Change{Installation: inst, Repo: reviewers.ReviewersRepo(inst),
		Number: pr.Number, URL: pr.HTMLURL, HeadSHA: pr.Head.SHA, BaseSHA: pr.Base.SHA, Closed: closed})
	if len(out.Created)+out.Cancelled > 0 {
		logging.From(ctx).Info("reviewer change: backtests", "queued", len(out.Created), "cancelled", out.Cancelled)
	}
	return err
}

// backtestRerequested backtests a change again when a person re-runs its
// `Chakshu backtest · <reviewer>` check (GitHub offers Re-run only to people
// with write access).
func (h *handler) backtestRerequested(ctx context.Context, e *checkRunEvent) error {
	if slug := e.CheckRun.App.Slug; slug != "" && !strings.EqualFold(slug, h.cfg.AppSlug) {
		return nil // another app's check that looks like ours
	}
	inst, err := h.reviewersRepoOf(ctx, &e.common)
	if inst == nil || err != nil {
		return err
	}
	bt, err := backtest.Rerun(ctx, h.cfg.DB, h.cfg.Bus, inst.ID, e.CheckRun.ID)
	if bt != nil {
		logging.From(ctx).Info("backtest re-run", "reviewer", bt.ReviewerName, "pr", bt.PrNumber)
	}
	return err
}

// reviewersRepoOf is the installation of an event on its reviewers
// repository; nil for an event on any other repository.
func (h *handler) reviewersRepoOf(ctx context.Context, c *common) (*ent.Installation, error) {
	if c.Repository == nil || c.Installation.ID == 0 {
		return nil, nil
	}
	inst, err := h.ensureInstallation(ctx, c.Installation.ID, c.Repository.Owner)
	if err != nil || !reviewers.IsReviewersRepo(inst, c.Repository.FullName) {
		return nil, err
	}
	return inst, nil
}
