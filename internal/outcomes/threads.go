package outcomes

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/shurcooL/githubv4"
)

// Thread is a review thread of a pull request with what outcomes read from
// it: who resolved it, whether GitHub marks it outdated, and its comments
// (the first is the thread's root) with the root's 👍 and 👎.
type Thread struct {
	ID         string
	IsResolved bool
	IsOutdated bool
	// ResolvedBy is the login that resolved it; empty when unresolved or
	// GitHub does not say.
	ResolvedBy string
	Path       string
	// Comments, oldest first (at most the first 30 replies after the root).
	Comments []Comment
}

// Comment is one comment of a thread.
type Comment struct {
	ID        int64
	Author    string
	AuthorBot bool
	Body      string
	// ThumbsUp and ThumbsDown are who reacted so (the root comment only; at
	// most 10 names each), Up and Down how many did.
	ThumbsUp, ThumbsDown []string
	Up, Down             int
}

// Root is the thread's first comment (zero when GitHub sent none).
func (t *Thread) Root() Comment {
	if len(t.Comments) == 0 {
		return Comment{}
	}
	return t.Comments[0]
}

// Replies are the comments after the root.
func (t *Thread) Replies() []Comment {
	if len(t.Comments) < 2 {
		return nil
	}
	return t.Comments[1:]
}

// Paging: GitHub allows at most 100 nodes per connection page; a PR with
// more than 2,000 threads is read up to there.
const (
	threadsPerPage = 100
	maxThreadPages = 20
)

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

type actor struct {
	Typename string `graphql:"__typename"`
	Login    string
}

// reactors are the first people to leave one reaction on a comment.
type reactors struct {
	TotalCount int
	Nodes      []struct {
		User struct{ Login string }
	}
}

// commentNode is a thread comment; the root also carries its reactions.
type commentNode struct {
	FullDatabaseID bigInt `graphql:"fullDatabaseId"`
	Author         actor
	Body           string
}

// threadsQuery is the one paged read of a PR's review threads that both
// tidy and outcomes use. The root comment is asked for apart (alias root)
// so reactions are read for it alone: GitHub prices a query by the
// connections it opens, and reactions on every reply would open 30 times as
// many. Comments join through fullDatabaseId (databaseId is deprecated).
type threadsQuery struct {
	Repository struct {
		PullRequest struct {
			ReviewThreads struct {
				Nodes []struct {
					ID         githubv4.ID
					IsResolved bool
					IsOutdated bool
					Path       string
					ResolvedBy struct{ Login string }
					Root       struct {
						Nodes []struct {
							FullDatabaseID bigInt `graphql:"fullDatabaseId"`
							Author         actor
							Body           string
							Up             reactors `graphql:"up: reactions(content: THUMBS_UP, first: 10)"`
							Down           reactors `graphql:"down: reactions(content: THUMBS_DOWN, first: 10)"`
						}
					} `graphql:"root: comments(first: 1)"`
					Replies struct {
						Nodes []commentNode
					} `graphql:"replies: comments(first: 31)"`
				}
				PageInfo struct {
					HasNextPage bool
					EndCursor   githubv4.String
				}
			} `graphql:"reviewThreads(first: $first, after: $cursor, last: $last)"`
		} `graphql:"pullRequest(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

// ListThreads pages through the review threads of pull request number of
// owner/name: one GraphQL call per 100 threads.
func ListThreads(ctx context.Context, c *githubv4.Client, owner, name string, number int) ([]Thread, error) {
	return readThreads(ctx, c, owner, name, number, githubv4.NewInt(threadsPerPage), nil, maxThreadPages)
}

// NewestThreads reads the newest n (1 to 100) review threads of pull
// request number of owner/name, oldest first, in one GraphQL call.
func NewestThreads(ctx context.Context, c *githubv4.Client, owner, name string, number, n int) ([]Thread, error) {
	return readThreads(ctx, c, owner, name, number, nil, githubv4.NewInt(githubv4.Int(n)), 1)
}

// readThreads reads up to pages pages of the threads, the first or the
// last of them.
func readThreads(ctx context.Context, c *githubv4.Client, owner, name string, number int, first, last *githubv4.Int, pages int) ([]Thread, error) {
	vars := map[string]any{
		"owner":  githubv4.String(owner),
		"name":   githubv4.String(name),
		"number": githubv4.Int(number),
		"cursor": (*githubv4.String)(nil),
		"first":  first,
		"last":   last,
	}
	var out []Thread
	for page := 0; page < pages; page++ {
		var q threadsQuery
		if err := c.Query(ctx, &q, vars); err != nil {
			return nil, fmt.Errorf("list review threads: %w", err)
		}
		rt := q.Repository.PullRequest.ReviewThreads
		for _, n := range rt.Nodes {
			t := Thread{ID: fmt.Sprint(n.ID), IsResolved: n.IsResolved, IsOutdated: n.IsOutdated, Path: n.Path}
			if n.IsResolved {
				t.ResolvedBy = n.ResolvedBy.Login
			}
			if len(n.Root.Nodes) > 0 {
				r := n.Root.Nodes[0]
				root := comment(commentNode{r.FullDatabaseID, r.Author, r.Body})
				root.Up, root.Down = r.Up.TotalCount, r.Down.TotalCount
				for _, x := range r.Up.Nodes {
					root.ThumbsUp = append(root.ThumbsUp, x.User.Login)
				}
				for _, x := range r.Down.Nodes {
					root.ThumbsDown = append(root.ThumbsDown, x.User.Login)
				}
				t.Comments = append(t.Comments, root)
				for _, x := range n.Replies.Nodes {
					if int64(x.FullDatabaseID) != root.ID {
						t.Comments = append(t.Comments, comment(x))
					}
				}
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

func comment(n commentNode) Comment {
	return Comment{ID: int64(n.FullDatabaseID), Author: n.Author.Login, AuthorBot: n.Author.Typename == "Bot", Body: n.Body}
}
