package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent"
	entrepo "github.com/chakshu-dev/chakshu/ent/repository"
	"github.com/chakshu-dev/chakshu/graph/model"
	"github.com/chakshu-dev/chakshu/internal/audit"
	"github.com/chakshu-dev/chakshu/internal/doctor"
	"github.com/chakshu-dev/chakshu/internal/enrol"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/version"
)

// scopeEnrol is the token an onboarding pull request is opened with: the
// workflow file needs Workflows: write besides Contents: write.
var scopeEnrol = gh.Scope{"contents": "write", "workflows": "write", "pull_requests": "write", "metadata": "read"}

var enrolCfg = enrol.Config{Template: action.WorkflowTemplate, Version: version.Version}

// mayOpenPullRequests: the installation granted everything scopeEnrol holds.
func mayOpenPullRequests(granted gh.Scope) bool {
	for k, v := range scopeEnrol {
		if !gh.Covers(granted[k], v) {
			return false
		}
	}
	return true
}

func (h *api) enrolment(ctx context.Context, instID int) (*model.Enrolment, error) {
	if err := requireAdminOf(ctx, instID); err != nil {
		return nil, err
	}
	if h.cfg.GitHub == nil {
		return nil, forbidden("GitHub is not configured")
	}
	inst, err := h.clientFrom(ctx).Installation.Get(ctx, instID)
	if err != nil {
		return nil, err
	}
	granted, err := h.cfg.GitHub.Granted(ctx, inst.GithubID)
	if err != nil {
		return nil, fmt.Errorf("enrolment: %w", err)
	}
	ic, err := h.cfg.GitHub.Installation(inst.GithubID)
	if err != nil {
		return nil, fmt.Errorf("enrolment: %w", err)
	}
	repos, err := inst.QueryRepositories().Where(entrepo.Removed(false)).Order(ent.Asc(entrepo.FieldFullName)).All(ctx)
	if err != nil {
		return nil, err
	}
	out := &model.Enrolment{Installation: inst, CanOpenPullRequests: mayOpenPullRequests(granted), Template: action.WorkflowTemplate,
		Repositories: []*model.RepositoryEnrolment{}}
	revRepo := reviewerconfig.ReviewersRepo(inst)
	for _, r := range repos {
		if strings.EqualFold(r.FullName, revRepo) {
			continue
		}
		w, pr, err := enrol.Status(ctx, ic.REST, enrolCfg, r.Owner, r.Name, r.DefaultBranch)
		if err != nil {
			return nil, fmt.Errorf("enrolment of %s: %w", r.FullName, err)
		}
		out.Repositories = append(out.Repositories, h.repositoryEnrolment(r, w, pr))
	}
	return out, nil
}

func (h *api) repositoryEnrolment(r *ent.Repository, w doctor.RepoWorkflow, pr *enrol.Pull) *model.RepositoryEnrolment {
	e := &model.RepositoryEnrolment{Repository: r, State: model.WorkflowState(strings.ToUpper(string(w.State))), Detail: w.Detail}
	switch {
	case w.State == doctor.WorkflowCurrent:
	case w.Exists:
		u := enrol.EditFileURL(h.webURL, r.FullName, w.Branch)
		e.EditWorkflowURL = &u
	default:
		u := enrol.NewFileURL(h.webURL, r.FullName, w.Branch, action.WorkflowTemplate)
		e.NewWorkflowURL = &u
	}
	if pr != nil {
		e.OnboardingPullRequest = &model.OnboardingPullRequest{Number: pr.Number, URL: pr.URL, State: strings.ToUpper(pr.State)}
	}
	return e
}

func (h *api) openOnboardingPullRequest(ctx context.Context, repoID int) (*model.RepositoryEnrolment, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	c := h.clientFrom(ctx)
	r, err := c.Repository.Get(ctx, repoID)
	if err != nil {
		return nil, err
	}
	inst, err := r.QueryInstallation().Only(allowAllCtx(ctx))
	if err != nil {
		return nil, fmt.Errorf("onboarding installation: %w", err)
	}
	if err := requireAdminOf(ctx, inst.ID); err != nil {
		return nil, err
	}
	if h.cfg.GitHub == nil {
		return nil, forbidden("GitHub is not configured")
	}
	granted, err := h.cfg.GitHub.Granted(ctx, inst.GithubID)
	if err != nil {
		return nil, fmt.Errorf("onboarding: %w", err)
	}
	if !mayOpenPullRequests(granted) {
		return nil, forbidden("the installation on %s has not granted Workflows: write; commit %s through GitHub's page instead", inst.AccountLogin, doctor.WorkflowPath)
	}
	ic, err := h.cfg.GitHub.InstallationFor(inst.GithubID, scopeEnrol)
	if err != nil {
		return nil, fmt.Errorf("onboarding: %w", err)
	}
	out, err := enrol.Enrol(ctx, ic.REST, enrolCfg, r.Owner, r.Name)
	if err != nil {
		return nil, fmt.Errorf("onboarding %s: %w", r.FullName, err)
	}
	if out.Action == enrol.NotPermitted {
		return nil, forbidden("GitHub refused the onboarding pull request on %s: %s", r.FullName, out.Reason)
	}
	if out.Pull != nil {
		e := audit.Entry{Actor: v.User.Login, Action: audit.RepositoryOnboarding, InstallationID: inst.ID, Target: "repository " + r.FullName,
			Detail: fmt.Sprintf("%s pull request #%d (%s)", out.Action, out.Pull.Number, out.Before.State)}
		if err := audit.Record(ctx, c, e); err != nil {
			return nil, err
		}
	}
	return h.repositoryEnrolment(r, out.Before, out.Pull), nil
}
