package publish

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v88/github"
	"github.com/shurcooL/githubv4"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/outcomes"
)

// Installations hands out the GitHub clients of an installation.
type Installations interface {
	Installation(id int64) (*gh.Installation, error)
	// InstallationFor's token carries exactly scope (the resolve step's
	// Contents: write).
	InstallationFor(id int64, scope gh.Scope) (*gh.Installation, error)
}

var _ Installations = (*gh.Apps)(nil)

// Paging limits: reviews are bounded so a pathological PR cannot keep a
// worker busy.
const (
	perPage      = 100
	maxListPages = 20
)

// repoRef names a pull request.
type repoRef struct {
	owner, name string
	number      int
}

// prFiles are the PR's files as the diff map wants them: those the run's
// job listed and stored (runs.pr_files), at the head it reviewed; a run
// whose job a schema-3 binary built has none and lists them (gh.ListPRFiles).
func prFiles(ctx context.Context, c *github.Client, r *ent.Run, pr repoRef) ([]diffmap.FileInfo, error) {
	if r.PrFiles != nil && len(*r.PrFiles) > 0 {
		return diffmap.DecodeFiles(*r.PrFiles)
	}
	fs, err := gh.ListPRFiles(ctx, c, pr.owner, pr.name, pr.number)
	if err != nil {
		return nil, err
	}
	return diffmap.FilesOf(fs), nil
}

// listReviews returns the PR's reviews.
func listReviews(ctx context.Context, c *github.Client, pr repoRef) ([]*github.PullRequestReview, error) {
	var out []*github.PullRequestReview
	opt := &github.ListOptions{PerPage: perPage}
	for page := 0; page < maxListPages; page++ {
		rs, resp, err := c.PullRequests.ListReviews(ctx, pr.owner, pr.name, pr.number, opt)
		if err != nil {
			return nil, fmt.Errorf("list PR reviews: %w", err)
		}
		out = append(out, rs...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return out, nil
}

// listReviewComments returns the PR's review comments.
func listReviewComments(ctx context.Context, c *github.Client, pr repoRef) ([]*github.PullRequestComment, error) {
	var out []*github.PullRequestComment
	opt := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: perPage}}
	for page := 0; page < maxListPages; page++ {
		cs, resp, err := c.PullRequests.ListComments(ctx, pr.owner, pr.name, pr.number, opt)
		if err != nil {
			return nil, fmt.Errorf("list PR review comments: %w", err)
		}
		out = append(out, cs...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return out, nil
}

// statusOf is the HTTP status of a go-github error, or 0.
func statusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

func isUnprocessable(err error) bool { return statusOf(err) == http.StatusUnprocessableEntity }

// Thread is a review thread of a PR as the tidy and the recording need it.
type Thread struct {
	ID         string
	IsResolved bool
	IsOutdated bool
	// Root is the thread's first comment.
	RootID        int64
	RootAuthor    string
	RootAuthorBot bool
	RootBody      string
	// full is the thread as outcomes read it (replies, reactions, resolver).
	full outcomes.Thread
}

// listThreads pages through all review threads of the PR with the one
// thread query outcomes also reads (outcomes.ListThreads).
func listThreads(ctx context.Context, c *githubv4.Client, pr repoRef) ([]Thread, error) {
	return threadsOf(outcomes.ListThreads(ctx, c, pr.owner, pr.name, pr.number))
}

// newestThreads are the PR's newest n (1 to 100) review threads, in one
// call (outcomes.NewestThreads).
func newestThreads(ctx context.Context, c *githubv4.Client, pr repoRef, n int) ([]Thread, error) {
	return threadsOf(outcomes.NewestThreads(ctx, c, pr.owner, pr.name, pr.number, n))
}

func threadsOf(ts []outcomes.Thread, err error) ([]Thread, error) {
	if err != nil {
		return nil, err
	}
	out := make([]Thread, len(ts))
	for i, t := range ts {
		root := t.Root()
		out[i] = Thread{ID: t.ID, IsResolved: t.IsResolved, IsOutdated: t.IsOutdated, RootID: root.ID,
			RootAuthor: root.Author, RootAuthorBot: root.AuthorBot, RootBody: root.Body, full: t}
	}
	return out, nil
}
