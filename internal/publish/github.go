package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/go-github/v88/github"
	"github.com/shurcooL/githubv4"

	"github.com/chakshu-dev/chakshu/internal/diffmap"
	"github.com/chakshu-dev/chakshu/internal/gh"
)

// Installations hands out the GitHub clients of an installation.
type Installations interface {
	Installation(id int64) (*gh.Installation, error)
	// InstallationFor's token carries exactly scope (the resolve step's
	// Contents: write).
	InstallationFor(id int64, scope gh.Scope) (*gh.Installation, error)
}

var _ Installations = (*gh.Apps)(nil)

// Paging limits: GitHub lists at most 3,000 files of a PR; threads and
// reviews are bounded so a pathological PR cannot keep a worker busy.
const (
	perPage       = 100
	maxFilePages  = 30
	maxListPages  = 20
	maxThreadPage = 20
)

// repoRef names a pull request.
type repoRef struct {
	owner, name string
	number      int
}

// listFiles returns the PR's files as the diff map wants them.
func listFiles(ctx context.Context, c *github.Client, pr repoRef) ([]diffmap.FileInfo, error) {
	var out []diffmap.FileInfo
	opt := &github.ListOptions{PerPage: perPage}
	for page := 0; page < maxFilePages; page++ {
		fs, resp, err := c.PullRequests.ListFiles(ctx, pr.owner, pr.name, pr.number, opt)
		if err != nil {
			return nil, fmt.Errorf("list PR files: %w", err)
		}
		for _, f := range fs {
			out = append(out, diffmap.FileInfo{
				Path: f.GetFilename(), PreviousPath: f.GetPreviousFilename(), Status: f.GetStatus(),
				Patch: f.GetPatch(), Additions: f.GetAdditions(), Deletes: f.GetDeletions(),
			})
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	return out, nil
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

// bigInt decodes GitHub's BigInt scalar (a string, or a number from some servers).
type bigInt int64

// UnmarshalJSON implements json.Unmarshaler.
func (b *bigInt) UnmarshalJSON(p []byte) error {
	s := strings.Trim(string(p), `"`)
	if s == "null" || s == "" {
		*b = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("BigInt %s: %w", p, err)
	}
	*b = bigInt(n)
	return nil
}

var _ json.Unmarshaler = (*bigInt)(nil)

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
}

// threadsQuery pages a PR's review threads with each thread's first comment.
// Comments are joined through fullDatabaseId (databaseId is deprecated).
type threadsQuery struct {
	Repository struct {
		PullRequest struct {
			ReviewThreads struct {
				Nodes []struct {
					ID         githubv4.ID
					IsResolved bool
					IsOutdated bool
					Comments   struct {
						Nodes []struct {
							FullDatabaseID bigInt `graphql:"fullDatabaseId"`
							Author         struct {
								Typename string `graphql:"__typename"`
								Login    string
							}
							Body string
						}
					} `graphql:"comments(first: 1)"`
				}
				PageInfo struct {
					HasNextPage bool
					EndCursor   githubv4.String
				}
			} `graphql:"reviewThreads(first: 100, after: $cursor)"`
		} `graphql:"pullRequest(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// listThreads pages through all review threads of the PR.
func listThreads(ctx context.Context, c *githubv4.Client, pr repoRef) ([]Thread, error) {
	vars := map[string]any{
		"owner":  githubv4.String(pr.owner),
		"name":   githubv4.String(pr.name),
		"number": githubv4.Int(pr.number),
		"cursor": (*githubv4.String)(nil),
	}
	var out []Thread
	for page := 0; page < maxThreadPage; page++ {
		var q threadsQuery
		if err := c.Query(ctx, &q, vars); err != nil {
			return nil, fmt.Errorf("list review threads: %w", err)
		}
		rt := q.Repository.PullRequest.ReviewThreads
		for _, n := range rt.Nodes {
			t := Thread{ID: fmt.Sprint(n.ID), IsResolved: n.IsResolved, IsOutdated: n.IsOutdated}
			if len(n.Comments.Nodes) > 0 {
				c := n.Comments.Nodes[0]
				t.RootID, t.RootAuthor, t.RootBody = int64(c.FullDatabaseID), c.Author.Login, c.Body
				t.RootAuthorBot = c.Author.Typename == "Bot"
			}
			out = append(out, t)
		}
		if !rt.PageInfo.HasNextPage {
			break
		}
		cursor := rt.PageInfo.EndCursor
		vars["cursor"] = &cursor
	}
	return out, nil
}
