package events

import (
	"context"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/reviewers"
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
	h.log = h.log.With("pr", number, "reviewer", name)
	all, err := h.enabledReviewers(ctx, inst)
	if err != nil {
		return err
	}
	p, err := pick(ctx, all, reviewers.RepoConfig{}, repo.FullName, reviewers.Trigger{Kind: reviewers.TriggerComment, Names: []string{name}}, false, nil)
	if err != nil || len(p.Reviewers) == 0 {
		return err // the reviewer is gone
	}
	gc, err := h.client(inst.GithubID)
	if err != nil {
		return err
	}
	pr, err := getPR(ctx, gc, repo, number)
	if err != nil || pr.State != "open" {
		return err
	}
	_, err = h.queue(ctx, repo, pr, p.Reviewers, run.TriggerRerequest, e.Sender.Login, "", "")
	return err
}
