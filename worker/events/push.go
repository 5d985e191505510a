package events

import (
	"context"
	"strings"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// push asks for a reviewer sync when the installation's reviewers repository
// moves on its default branch. The App receives the pushes of every
// repository it can see; only that one matters, so the payload of every other
// push is dropped once handled (issue 22: not stored beyond deduplication).
func (h *handler) push(ctx context.Context) error {
	var e pushEvent
	if err := h.decode(&e); err != nil {
		return err
	}
	h.dropPayload = true
	repo := e.Repository
	if repo == nil {
		return nil
	}
	branch := repo.DefaultBranch
	if branch == "" {
		branch = repo.MasterBranch
	}
	if e.Deleted || branch == "" || e.Ref != "refs/heads/"+branch {
		return nil
	}
	inst, err := h.cfg.DB.Installation.Query().Where(installation.GithubID(e.Installation.ID)).Only(ctx)
	if ent.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	want := inst.ReviewersRepo
	if want == "" {
		want = inst.AccountLogin + "/chakshu-reviewers"
	}
	if !strings.EqualFold(repo.FullName, want) {
		return nil
	}
	h.dropPayload = false // the reviewers repository: kept as long as retention says
	logging.From(ctx).Info("reviewers repository pushed: sync requested", "commit", e.After)
	return reviewerconfig.RequestSync(ctx, h.cfg.DB, h.cfg.Bus, inst.ID)
}
