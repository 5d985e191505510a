package ghwrite

import (
	"context"

	"github.com/google/go-github/v88/github"
)

// The onboarding writes (internal/enrol): a branch, a file on it and a pull
// request (and the branch's removal when the file is refused), made with the client of whoever enrols a repository (the
// operator's own token for `chakshu enrol`, the installation's for the
// portal's button). Each is one person's action on one repository, a few
// writes at most, so they are not paced as reviews' writes are; they are
// here so that every write to GitHub stays in this package.

// CreateBranch creates refs/heads/branch at sha.
func CreateBranch(ctx context.Context, c *github.Client, owner, repo, branch, sha string) error {
	_, _, err := c.Git.CreateRef(ctx, owner, repo, github.CreateRef{Ref: "refs/heads/" + branch, SHA: sha})
	return err
}

// DeleteBranch deletes refs/heads/branch.
func DeleteBranch(ctx context.Context, c *github.Client, owner, repo, branch string) error {
	_, err := c.Git.DeleteRef(ctx, owner, repo, "heads/"+branch)
	return err
}

// PutFile creates or updates (opts.SHA set) path on opts.Branch.
func PutFile(ctx context.Context, c *github.Client, owner, repo, path string, opts *github.RepositoryContentFileOptions) error {
	_, _, err := c.Repositories.CreateFile(ctx, owner, repo, path, opts)
	return err
}

// OpenPullRequest opens a pull request.
func OpenPullRequest(ctx context.Context, c *github.Client, owner, repo string, pr *github.NewPullRequest) (*github.PullRequest, error) {
	p, _, err := c.PullRequests.Create(ctx, owner, repo, pr)
	return p, err
}
