package events

import (
	"context"
	"strings"

	"github.com/chakshu-dev/chakshu/internal/backtest"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
)

// reviewerChange backtests a pull request to the installation's reviewers
// repository that changes reviewers (issue 25): a push queues one backtest
// per changed reviewer and supersedes those of the older head; closing
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
	if e.Repository == nil || e.Installation.ID == 0 {
		return nil
	}
	inst, err := h.ensureInstallation(ctx, e.Installation.ID, e.Repository.Owner)
	if err != nil {
		return err
	}
	if !reviewers.IsReviewersRepo(inst, e.Repository.FullName) {
		return nil
	}
	pr := &e.PullRequest
	if !closed && pr.State != "open" {
		return nil
	}
	gc, err := h.client(inst.GithubID)
	if err != nil {
		return err
	}
	out, err := backtest.Request(ctx, h.cfg.DB, h.cfg.Bus, gc, backtest.Change{Installation: inst, Repo: reviewers.ReviewersRepo(inst),
		Number: pr.Number, URL: pr.HTMLURL, HeadSHA: pr.Head.SHA, BaseSHA: pr.Base.SHA, Closed: closed})
	if len(out.Created)+out.Cancelled > 0 {
		h.log.Info("reviewer change: backtests", "queued", len(out.Created), "cancelled", out.Cancelled)
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
	if e.Repository == nil || e.Installation.ID == 0 {
		return nil
	}
	inst, err := h.ensureInstallation(ctx, e.Installation.ID, e.Repository.Owner)
	if err != nil {
		return err
	}
	if !reviewers.IsReviewersRepo(inst, e.Repository.FullName) {
		return nil
	}
	bt, err := backtest.Rerun(ctx, h.cfg.DB, h.cfg.Bus, inst.ID, e.CheckRun.ID)
	if bt != nil {
		h.log.Info("backtest re-run", "reviewer", bt.ReviewerName, "pr", bt.PrNumber)
	}
	return err
}
