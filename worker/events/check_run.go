package events

import (
	"context"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/reviewrequest"
)

// checkPrefix starts the name of every check run Chakshu creates: "Chakshu · <reviewer>".
const checkPrefix = "Chakshu · "

// checkRun handles "Re-run" on a Chakshu check: that reviewer again, on the PR's current head.
func (h *handler) checkRun(ctx context.Context) error {
	var e checkRunEvent
	if err := h.decode(&e); err != nil {
		return err
	}
	switch e.Action {
	case "rerequested":
		return h.checkRerequested(ctx, &e)
	default:
		return nil
	}
}

func (h *handler) checkRerequested(ctx context.Context, e *checkRunEvent) error {
	cr := &e.CheckRun
	if strings.HasPrefix(cr.Name, ghwrite.BacktestCheckName("")) {
		return h.backtestRerequested(ctx, e)
	}
	name, ok := strings.CutPrefix(cr.Name, checkPrefix)
	if !ok || name == "" || strings.Contains(name, " · ") { // not ours, or a reply's check
		return nil
	}
	if slug := cr.App.Slug; slug != "" && !strings.EqualFold(slug, h.cfg.AppSlug) {
		return nil // another app's check that looks like ours
	}
	inst, repo, err := h.repoOf(ctx, &e.common)
	if err != nil {
		return err
	}
	var number int
	if len(cr.PullRequests) > 0 {
		number = cr.PullRequests[0].Number
	} else {
		// GitHub lists only PRs whose head is the check's commit; an older
		// check is found through the run that created it.
		r, err := h.cfg.DB.Run.Query().Where(run.CheckRunID(cr.ID), run.HasRepositoryWith(repository.ID(repo.ID))).First(ctx)
		if ent.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		number = r.PrNumber
	}
	ctx = logging.Add(ctx, "pr", number, "reviewer", name)
	gc, err := h.client(inst.GithubID)
	if err != nil {
		return err
	}
	// Only people with write access can re-run a check on GitHub.
	out, err := h.requests.Request(ctx, reviewrequest.Request{Repo: repo, Inst: inst, GitHub: gc, Trusted: true,
		Login: e.Sender.Login, Number: number, Trigger: reviewerconfig.Trigger{Kind: reviewerconfig.TriggerComment, Names: []string{name}},
		RunTrigger: run.TriggerRerequest})
	if refused(err) || err == nil && len(out.Picked.Reviewers) == 0 {
		return nil // the PR is closed, or the reviewer is gone
	}
	return err
}
