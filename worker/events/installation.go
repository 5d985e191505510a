package events

import (
	"context"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/internal/logging"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// regranter is *gh.Apps: its tokens cut down to what an installation had
// granted ask for their full scope again.
type regranter interface{ Regrant(githubID int64) }

// installation keeps the Installation row (and its repositories) current.
func (h *handler) installation(ctx context.Context) error {
	var e installationEvent
	if err := h.decode(&e); err != nil {
		return err
	}
	in := &e.Installation
	switch e.Action {
	case "created", "new_permissions_accepted", "unsuspend":
		inst, err := h.upsertInstallation(ctx, in, false)
		if err != nil {
			return err
		}
		if err := h.addRepos(ctx, inst, e.Repositories); err != nil {
			return err
		}
		if r, ok := h.cfg.GitHub.(regranter); ok && e.Action == "new_permissions_accepted" {
			r.Regrant(in.ID) // tokens ask for the accepted permissions at once
		}
		// A new (or newly permitted) installation needs its reviewers now, not at the next periodic sync.
		return reviewerconfig.RequestSync(ctx, h.cfg.DB, h.cfg.Bus, inst.ID)
	case "suspend":
		_, err := h.upsertInstallation(ctx, in, true)
		return err
	case "deleted":
		inst, err := h.upsertInstallation(ctx, in, true)
		if err != nil {
			return err
		}
		// The rows stay for history; the repositories are no longer covered.
		return h.cfg.DB.Repository.Update().Where(repository.HasInstallationWith(installation.ID(inst.ID))).
			SetRemoved(true).Exec(ctx)
	default:
		return nil
	}
}

func (h *handler) upsertInstallation(ctx context.Context, in *installationPayload, suspended bool) (*ent.Installation, error) {
	if in.ID == 0 {
		return nil, permanent("installation event without an installation id")
	}
	acct := in.Account
	c := h.cfg.DB.Installation.Create().SetGithubID(in.ID).SetAccountLogin(acct.Login).SetSuspended(suspended)
	up := c.OnConflictColumns(installation.FieldGithubID).UpdateSuspended()
	if acct.Login != "" {
		up.UpdateAccountLogin()
	}
	if acct.ID != 0 { // org owners are recognised by this id (server/auth/orgadmin.go)
		c.SetAccountID(acct.ID)
		up.UpdateAccountID()
	}
	if t := acct.Type; t != "" {
		c.SetAccountType(t)
		up.UpdateAccountType()
	}
	if err := up.Exec(ctx); err != nil {
		return nil, fmt.Errorf("record installation %d: %w", in.ID, err)
	}
	logging.From(ctx).Info("installation updated", "suspended", suspended) // the logger in ctx already carries the action
	return h.cfg.DB.Installation.Query().Where(installation.GithubID(in.ID)).Only(ctx)
}

// installationRepositories keeps the installation's repositories current.
func (h *handler) installationRepositories(ctx context.Context) error {
	var e installationRepositoriesEvent
	if err := h.decode(&e); err != nil {
		return err
	}
	switch e.Action {
	case "added", "removed":
	default:
		return nil
	}
	inst, err := h.ensureInstallation(ctx, e.Installation.ID, e.Installation.Account)
	if err != nil {
		return err
	}
	if err := h.addRepos(ctx, inst, e.RepositoriesAdded); err != nil {
		return err
	}
	var gone []int64
	for _, r := range e.RepositoriesRemoved {
		gone = append(gone, r.ID)
	}
	if len(gone) == 0 {
		return nil
	}
	return h.cfg.DB.Repository.Update().Where(repository.GithubIDIn(gone...)).SetRemoved(true).Exec(ctx)
}

// addRepos records the repositories an installation covers.
func (h *handler) addRepos(ctx context.Context, inst *ent.Installation, rs []*repoPayload) error {
	for _, r := range rs {
		if _, err := h.ensureRepo(ctx, inst, r); err != nil {
			return err
		}
	}
	return nil
}
