package events

import (
	"context"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/backtest"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
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
	if !closed {
		if refused, err := h.backtestRefused(ctx, gc, inst, e); refused || err != nil {
			return err
		}
	}
	out, err := backtest.Request(ctx, h.cfg.DB, h.cfg.Bus, gc, backtest.Change{Installation: inst, Repo: reviewerconfig.ReviewersRepo(inst),
		Number: pr.Number, URL: pr.HTMLURL, HeadSHA: pr.Head.SHA, BaseSHA: pr.Base.SHA, Closed: closed})
	if len(out.Created)+out.Cancelled > 0 {
		logging.From(ctx).Info("reviewer change: backtests", "queued", len(out.Created), "cancelled", out.Cancelled)
	}
	return err
}

// backtestRefusedMarker marks the comment saying why a PR was not backtested.
const backtestRefusedMarker = "<!-- chakshu:backtest-refused -->"

// backtestRefused says (on the PR, once) why a change of reviewers is not
// backtested, and reports that it is not (issue 43 item 5): a backtest runs
// shadow reviews paid by the installation over its last reviewed PRs,
// possibly private, and names them in its report, so it runs only for a
// PR from a branch of the reviewers repository itself (never a fork)
// opened by someone with write access to it, its owner, or a login on the
// review allow-list: the rule of the review command.
func (h *handler) backtestRefused(ctx context.Context, gc *github.Client, inst *ent.Installation, e *pullRequestEvent) (bool, error) {
	pr := &e.PullRequest
	owner, name := splitFullName(e.Repository.FullName)
	repo := &ent.Repository{Owner: owner, Name: name, FullName: e.Repository.FullName}
	repo.Edges.Installation = inst
	var why string
	if pr.Head.Repo.ID == 0 || pr.Head.Repo.ID != pr.Base.Repo.ID {
		why = "it comes from a fork. Push the branch to " + e.Repository.FullName + " itself to have it backtested."
	} else if ok, err := h.canWrite(ctx, gc, repo, pr.User.Login, pr.AuthorAssociation); err != nil {
		return false, err
	} else if !ok {
		why = "backtests run only for pull requests opened by people with write access to " + e.Repository.FullName +
			" (or on Chakshu's review allow-list). Someone with write access can open the change instead."
	}
	if why == "" {
		return false, nil
	}
	names, err := backtest.ChangedReviewers(ctx, gc, reviewerconfig.ReviewersRepo(inst), pr.Number)
	if err != nil || len(names) == 0 {
		return true, err // no reviewer changed: nothing would have run, nothing to say
	}
	logging.From(ctx).Info("reviewer change not backtested", "author", pr.User.Login, "head_repo", pr.Head.Repo.ID)
	body := "Chakshu did not backtest this change to reviewers " + strings.Join(names, ", ") +
		": a backtest runs reviews at the installation's expense over recently reviewed pull requests, and " + why
	return true, h.comment(ctx, repo, pr.Number, backtestRefusedMarker, body, true)
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
	if err != nil || !reviewerconfig.IsReviewersRepo(inst, c.Repository.FullName) {
		return nil, err
	}
	return inst, nil
}
