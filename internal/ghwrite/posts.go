package ghwrite

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v88/github"
	"github.com/shurcooL/githubv4"

	"github.com/chakshu-dev/chakshu/internal/gh"
)

// Mine says whether a body Chakshu's bot posted is the one being written
// (its hidden marker); the caller owns the marker rules.
type Mine func(body string) bool

// maxLookPages bounds a look for a posted item (100 a page).
const maxLookPages = 30

// CreateReview posts one review on PR pr. After a failure that may have
// landed it looks for Chakshu's review that mine recognises before sending
// again. A refusal (4xx) is returned as it is: the caller decides what to
// change (go-github's error carries the status, see StatusOf).
func (p *Port) CreateReview(ctx context.Context, r Repo, pr int, req *github.PullRequestReviewRequest, mine Mine) (*github.PullRequestReview, error) {
	if err := onPR(ctx); err != nil {
		return nil, err
	}
	gc, err := p.rest(r)
	if err != nil {
		return nil, err
	}
	return written(ctx, p, r, finish, func() (*github.PullRequestReview, error) {
		return createOnce(ctx, p, func() (*github.PullRequestReview, error) {
			rv, _, err := gc.PullRequests.CreateReview(ctx, r.Owner, r.Name, pr, req)
			return rv, err
		}, func() (*github.PullRequestReview, bool, error) {
			return p.findReview(ctx, gc, r, pr, mine)
		})
	})
}

func (p *Port) findReview(ctx context.Context, gc *github.Client, r Repo, pr int, mine Mine) (*github.PullRequestReview, bool, error) {
	return findPaged(func(page int) ([]*github.PullRequestReview, *github.Response, error) {
		return gc.PullRequests.ListReviews(ctx, r.Owner, r.Name, pr, &github.ListOptions{PerPage: 100, Page: page})
	}, func(rv *github.PullRequestReview) bool { return p.isBot(rv.GetUser()) && mine(rv.GetBody()) },
		fmt.Sprintf("list reviews of %s#%d", r, pr))
}

// findPaged pages list (at most maxLookPages) for the first item ok accepts.
func findPaged[T any](list func(page int) ([]T, *github.Response, error), ok func(T) bool, what string) (T, bool, error) {
	var zero T
	page := 0
	for range maxLookPages {
		items, resp, err := list(page)
		if err != nil {
			return zero, false, fmt.Errorf("%s: %w", what, err)
		}
		for _, it := range items {
			if ok(it) {
				return it, true, nil
			}
		}
		if resp.NextPage == 0 {
			break
		}
		page = resp.NextPage
	}
	return zero, false, nil
}

func (p *Port) isBot(u *github.User) bool { return strings.EqualFold(u.GetLogin(), p.bot) }

// Comment posts body on the PR's conversation. lookFirst asks for a look
// for a comment mine recognises before the first attempt too (a retry of
// work that may have posted it already); a failure that may have landed is
// always looked for before sending again.
func (p *Port) Comment(ctx context.Context, r Repo, pr int, body string, mine Mine, lookFirst bool) (*github.IssueComment, error) {
	if err := onPR(ctx); err != nil {
		return nil, err
	}
	gc, err := p.rest(r)
	if err != nil {
		return nil, err
	}
	find := func() (*github.IssueComment, bool, error) { return p.findComment(ctx, gc, r, pr, mine) }
	if lookFirst {
		if c, ok, err := find(); err != nil || ok {
			return c, err
		}
	}
	c, err := written(ctx, p, r, finish, func() (*github.IssueComment, error) {
		return createOnce(ctx, p, func() (*github.IssueComment, error) {
			c, _, err := gc.Issues.CreateComment(ctx, r.Owner, r.Name, pr, &github.IssueComment{Body: github.Ptr(body)})
			return c, err
		}, find)
	})
	if err != nil {
		return nil, fmt.Errorf("comment on %s#%d: %w", r, pr, err)
	}
	return c, nil
}

func (p *Port) findComment(ctx context.Context, gc *github.Client, r Repo, pr int, mine Mine) (*github.IssueComment, bool, error) {
	return findPaged(func(page int) ([]*github.IssueComment, *github.Response, error) {
		return gc.Issues.ListComments(ctx, r.Owner, r.Name, pr, &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100, Page: page}})
	}, func(c *github.IssueComment) bool { return p.isBot(c.GetUser()) && mine(c.GetBody()) },
		fmt.Sprintf("list comments of %s#%d", r, pr))
}

// Reply answers in the review thread whose first comment is root, through
// the replies endpoint (go-github's CreateCommentInReplyTo sends fields it
// does not take). lookFirst and mine as for Comment.
func (p *Port) Reply(ctx context.Context, r Repo, pr int, root int64, body string, mine Mine, lookFirst bool) (*github.PullRequestComment, error) {
	if err := onPR(ctx); err != nil {
		return nil, err
	}
	gc, err := p.rest(r)
	if err != nil {
		return nil, err
	}
	find := func() (*github.PullRequestComment, bool, error) { return p.findReply(ctx, gc, r, pr, mine) }
	if lookFirst {
		if c, ok, err := find(); err != nil || ok {
			return c, err
		}
	}
	c, err := written(ctx, p, r, finish, func() (*github.PullRequestComment, error) {
		return createOnce(ctx, p, func() (*github.PullRequestComment, error) {
			req, err := gc.NewRequest(ctx, http.MethodPost, fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", r.Owner, r.Name, pr, root),
				map[string]string{"body": body})
			if err != nil {
				return nil, err
			}
			var out github.PullRequestComment
			if _, err := gc.Do(req, &out); err != nil {
				return nil, err
			}
			return &out, nil
		}, find)
	})
	if err != nil {
		return nil, fmt.Errorf("reply in %s#%d thread %d: %w", r, pr, root, err)
	}
	return c, nil
}

func (p *Port) findReply(ctx context.Context, gc *github.Client, r Repo, pr int, mine Mine) (*github.PullRequestComment, bool, error) {
	return findPaged(func(page int) ([]*github.PullRequestComment, *github.Response, error) {
		return gc.PullRequests.ListComments(ctx, r.Owner, r.Name, pr, &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100, Page: page}})
	}, func(c *github.PullRequestComment) bool { return p.isBot(c.GetUser()) && mine(c.GetBody()) },
		fmt.Sprintf("list review comments of %s#%d", r, pr))
}

// ResolveThread resolves one review thread (GraphQL resolveReviewThread;
// resolving it twice is harmless).
func (p *Port) ResolveThread(ctx context.Context, r Repo, threadID string) error {
	if err := onPR(ctx); err != nil {
		return err
	}
	// Only this step's token carries Contents: write, which GitHub requires
	// of an App for resolveReviewThread (github/gh-aw#35726).
	in, err := p.apps.InstallationFor(r.Installation, gh.ScopeResolve)
	if err != nil {
		return fmt.Errorf("github client for installation %d (resolve): %w", r.Installation, err)
	}
	gq := in.GraphQL
	if _, err := p.gate(ctx, r.Installation, update); err != nil {
		return err
	}
	var m struct {
		ResolveReviewThread struct {
			Thread struct {
				ID         githubv4.ID
				IsResolved bool
			}
		} `graphql:"resolveReviewThread(input: $input)"`
	}
	if err := gq.Mutate(ctx, &m, githubv4.ResolveReviewThreadInput{ThreadID: githubv4.ID(threadID)}, nil); err != nil {
		return p.settle(ctx, r.Installation, 0, fmt.Errorf("resolve review thread: %w", err))
	}
	return nil
}

// RemoveReviewRequest clears the pending review request of target
// ("team:<slug>" or "user:<login>"); any other target does nothing.
func (p *Port) RemoveReviewRequest(ctx context.Context, r Repo, pr int, target string) error {
	if err := onPR(ctx); err != nil {
		return err
	}
	kind, who, ok := strings.Cut(target, ":")
	if !ok || who == "" {
		return nil
	}
	var req github.ReviewersRequest
	switch kind {
	case "team":
		req.TeamReviewers = []string{who}
	case "user":
		req.Reviewers = []string{who}
	default:
		return nil
	}
	gc, err := p.rest(r)
	if err != nil {
		return err
	}
	_, err = written(ctx, p, r, update, func() (*github.Response, error) {
		return gc.PullRequests.RemoveReviewers(ctx, r.Owner, r.Name, pr, req)
	})
	if err != nil {
		return fmt.Errorf("remove review request: %w", err)
	}
	return nil
}

// EditComment replaces the body of Chakshu's comment id on the PR's
// conversation (a backtest's comparison, posted once and edited when it is
// run again). Editing is not content-creating: it is paced as an update and
// is safe to send again.
func (p *Port) EditComment(ctx context.Context, r Repo, id int64, body string) (*github.IssueComment, error) {
	gc, err := p.rest(r)
	if err != nil {
		return nil, err
	}
	c, err := written(ctx, p, r, update, func() (*github.IssueComment, error) {
		c, _, err := gc.Issues.EditComment(ctx, r.Owner, r.Name, id, &github.IssueComment{Body: github.Ptr(body)})
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("edit comment %d on %s: %w", id, r, err)
	}
	return c, nil
}
