// Package enrol puts Chakshu's workflow into repositories: a link to
// GitHub's own new-file (or edit) page prefilled with the template, for a
// person to commit with their own rights, or an onboarding pull request from
// the branch chakshu/onboarding, opened with a token that may write
// workflows (an installation granted Workflows: write, or an operator's own).
// It never writes to a default branch. The portal and `chakshu enrol` share it.
package enrol

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/doctor"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
)

// Branch is the onboarding pull request's head.
const Branch = "chakshu/onboarding"

// Title is the onboarding pull request's title.
const Title = "Enrol this repository in Chakshu reviews"

const body = "This adds `" + doctor.WorkflowPath + "`, the workflow Chakshu dispatches to review pull requests " +
	"(its template, unchanged). Chakshu opened this pull request from `" + Branch + "` and never pushes to the default branch: " +
	"merge it to enrol the repository; close it to decline."

// NewFileURL is GitHub's new-file page for the workflow on branch, prefilled
// with template (the page's filename and value parameters, API.md).
func NewFileURL(webBase, fullName, branch, template string) string {
	q := url.Values{"filename": {doctor.WorkflowPath}, "value": {template}}
	return strings.TrimRight(webBase, "/") + "/" + fullName + "/new/" + url.PathEscape(branch) + "?" + q.Encode()
}

// EditFileURL is GitHub's edit page of the workflow on branch. GitHub does
// not document prefilling it, so the portal shows the template beside it.
func EditFileURL(webBase, fullName, branch string) string {
	return strings.TrimRight(webBase, "/") + "/" + fullName + "/edit/" + url.PathEscape(branch) + "/" + doctor.WorkflowPath
}

// Pull is an onboarding pull request.
type Pull struct {
	Number int
	URL    string
	// State is open, closed or merged.
	State string
}

// Action is what Enrol did.
type Action string

const (
	// Current: the workflow is current; nothing to do.
	Current Action = "current"
	// Opened: a new onboarding pull request.
	Opened Action = "opened"
	// Reused: an open onboarding pull request already existed (it is
	// brought up to the template).
	Reused Action = "reused"
	// NotPermitted: GitHub refused the write; Reason says why and the
	// links remain the way to enrol.
	NotPermitted Action = "not_permitted"
)

// Outcome is one repository's result.
type Outcome struct {
	Repo   string
	Before doctor.RepoWorkflow
	Action Action
	Pull   *Pull
	Reason string
}

// Config is what Enrol compares and writes.
type Config struct {
	// Template is the workflow to commit (action.WorkflowTemplate).
	Template string
	// Version is the server's version (doctor's comparison).
	Version string
}

// Status judges owner/name's workflow on its default branch and finds its
// onboarding pull request (nil if none was ever opened).
func Status(ctx context.Context, c *github.Client, cfg Config, owner, name, defaultBranch string) (doctor.RepoWorkflow, *Pull, error) {
	w, err := doctor.CheckWorkflow(ctx, c, owner, name, defaultBranch, cfg.Template, cfg.Version)
	if err != nil {
		return w, nil, err
	}
	p, err := findPull(ctx, c, owner, name, "all")
	return w, p, err
}

// findPull is the newest pull request from Branch (state open or all).
func findPull(ctx context.Context, c *github.Client, owner, name, state string) (*Pull, error) {
	prs, _, err := c.PullRequests.List(ctx, owner, name, &github.PullRequestListOptions{State: state, Head: owner + ":" + Branch,
		ListOptions: github.ListOptions{PerPage: 10}})
	if err != nil {
		return nil, fmt.Errorf("list onboarding pull requests: %w", err)
	}
	var newest *github.PullRequest
	for _, p := range prs {
		if p.GetHead().GetRef() == Branch && (newest == nil || p.GetNumber() > newest.GetNumber()) {
			newest = p
		}
	}
	if newest == nil {
		return nil, nil
	}
	st := newest.GetState()
	if newest.GetMerged() || newest.MergedAt != nil {
		st = "merged"
	}
	return &Pull{Number: newest.GetNumber(), URL: newest.GetHTMLURL(), State: st}, nil
}

// Enrol opens (or reuses) owner/name's onboarding pull request unless its
// workflow is current. It writes only to Branch: it creates it from the
// default branch's head, commits the template there and opens the pull
// request into the default branch. A refusal by GitHub (no workflows
// permission or scope, no write access) is an Outcome with NotPermitted,
// not an error.
func Enrol(ctx context.Context, c *github.Client, cfg Config, owner, name string) (Outcome, error) {
	out := Outcome{Repo: owner + "/" + name}
	repo, _, err := c.Repositories.Get(ctx, owner, name)
	if err != nil {
		return out, fmt.Errorf("read %s: %w", out.Repo, err)
	}
	def := repo.GetDefaultBranch()
	if def == Branch {
		return out, fmt.Errorf("%s's default branch is %s, the onboarding branch", out.Repo, Branch)
	}
	if out.Before, err = doctor.CheckWorkflow(ctx, c, owner, name, def, cfg.Template, cfg.Version); err != nil {
		return out, err
	}
	if out.Before.State == doctor.WorkflowCurrent {
		out.Action = Current
		return out, nil
	}
	open, err := findPull(ctx, c, owner, name, "open")
	if err != nil {
		return out, err
	}
	created, err := ensureBranch(ctx, c, owner, name, def)
	if err != nil {
		return refused(out, err)
	}
	if err := commitTemplate(ctx, c, cfg.Template, owner, name); err != nil {
		// Refused (no workflows permission or scope): a branch this call
		// created holds nothing and goes again. An earlier one stays.
		if created {
			if derr := ghwrite.DeleteBranch(ctx, c, owner, name, Branch); derr != nil {
				err = fmt.Errorf("%w (and removing the empty branch %s: %v)", err, Branch, derr)
			}
		}
		return refused(out, err)
	}
	if open != nil {
		out.Action, out.Pull = Reused, open
		return out, nil
	}
	pr, err := ghwrite.OpenPullRequest(ctx, c, owner, name, &github.NewPullRequest{Title: github.Ptr(Title), Head: github.Ptr(Branch),
		Base: github.Ptr(def), Body: github.Ptr(body)})
	if err != nil {
		// Another enrolment opened it meanwhile: GitHub allows one open
		// pull request per head and base (422).
		if p, ferr := findPull(ctx, c, owner, name, "open"); ferr == nil && p != nil {
			out.Action, out.Pull = Reused, p
			return out, nil
		}
		return refused(out, fmt.Errorf("open the pull request: %w", err))
	}
	out.Action, out.Pull = Opened, &Pull{Number: pr.GetNumber(), URL: pr.GetHTMLURL(), State: "open"}
	return out, nil
}

// refused turns GitHub's 403/404/409/422 into NotPermitted with its reason;
// other errors stay errors.
func refused(out Outcome, err error) (Outcome, error) {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil {
		switch ge.Response.StatusCode {
		case http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity:
			out.Action = NotPermitted
			out.Reason = fmt.Sprintf("GitHub answered %d %s", ge.Response.StatusCode, ge.Message)
			if ge.Response.StatusCode == http.StatusNotFound || ge.Response.StatusCode == http.StatusForbidden {
				out.Reason += " (writing " + doctor.WorkflowPath + " needs Workflows: write for the App, or the workflow scope for a personal token)"
			}
			return out, nil
		}
	}
	return out, err
}

// ensureBranch creates Branch at the default branch's head; a Branch that
// exists already (an earlier enrolment) is kept as it is. created says
// whether this call made it.
func ensureBranch(ctx context.Context, c *github.Client, owner, name, def string) (created bool, err error) {
	head, _, err := c.Repositories.GetBranch(ctx, owner, name, def, 0)
	if err != nil {
		return false, fmt.Errorf("read branch %s: %w", def, err)
	}
	err = ghwrite.CreateBranch(ctx, c, owner, name, Branch, head.GetCommit().GetSHA())
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusUnprocessableEntity && strings.Contains(ge.Message, "already exists") {
		return false, nil // "Reference already exists" (API.md)
	}
	if err != nil {
		return false, fmt.Errorf("create branch %s: %w", Branch, err)
	}
	return true, nil
}

// commitTemplate puts the template at WorkflowPath on Branch (and only
// there), unless it is already there.
func commitTemplate(ctx context.Context, c *github.Client, template, owner, name string) error {
	opts := &github.RepositoryContentFileOptions{Message: github.Ptr("Add " + doctor.WorkflowPath + " (Chakshu)"),
		Content: []byte(template), Branch: github.Ptr(Branch)}
	fc, _, resp, err := c.Repositories.GetContents(ctx, owner, name, doctor.WorkflowPath, &github.RepositoryContentGetOptions{Ref: Branch})
	switch {
	case err == nil:
		if have, _ := fc.GetContent(); have == template {
			return nil
		}
		opts.SHA = github.Ptr(fc.GetSHA())
		opts.Message = github.Ptr("Update " + doctor.WorkflowPath + " to this version's template (Chakshu)")
	case resp == nil || resp.StatusCode != http.StatusNotFound:
		return fmt.Errorf("read %s on %s: %w", doctor.WorkflowPath, Branch, err)
	}
	if *opts.Branch != Branch { // never the default branch
		return fmt.Errorf("refusing to write outside %s", Branch)
	}
	if err := ghwrite.PutFile(ctx, c, owner, name, doctor.WorkflowPath, opts); err != nil {
		return fmt.Errorf("commit %s to %s: %w", doctor.WorkflowPath, Branch, err)
	}
	return nil
}
