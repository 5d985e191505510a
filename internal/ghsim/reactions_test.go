package ghsim_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v88/github"
	"github.com/shurcooL/githubv4"
)

// Reactions on a review comment: created (201), the same one again (200),
// the REST rollup, GraphQL's filtered connection, and no webhook for any of it.
func TestReviewCommentReactions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	n := openPR(t, f)
	_, _, err := f.inst.REST.PullRequests.CreateReview(ctx, "acme", "widget", n, &github.PullRequestReviewRequest{
		Event: github.Ptr("COMMENT"), Body: github.Ptr("review"),
		Comments: []*github.DraftReviewComment{{Path: github.Ptr("main.go"), Line: github.Ptr(4), Body: github.Ptr("on hello")}}})
	if err != nil {
		t.Fatal(err)
	}
	id := f.sim.ReviewComments("acme/widget", n)[0].ID
	hooks := len(f.sim.Deliveries())
	for _, c := range []struct {
		content string
		status  int
	}{{"-1", http.StatusCreated}, {"-1", http.StatusOK}, {"heart", http.StatusCreated}} {
		_, resp, err := f.inst.REST.Reactions.CreatePullRequestCommentReaction(ctx, "acme", "widget", id, c.content)
		if err != nil || resp.StatusCode != c.status {
			t.Fatalf("react %s: %v %v, want %d", c.content, resp, err, c.status)
		}
	}
	f.sim.React("acme/widget", n, id, "alice", "+1")
	f.sim.React("acme/widget", n, id, "bob", "+1")
	if got := len(f.sim.Deliveries()); got != hooks {
		t.Errorf("reactions sent %d webhooks; GitHub sends none", got-hooks)
	}
	rc, _, err := f.inst.REST.PullRequests.GetComment(ctx, "acme", "widget", id)
	if err != nil {
		t.Fatal(err)
	}
	if r := rc.GetReactions(); r.GetTotalCount() != 4 || r.GetPlusOne() != 2 || r.GetMinusOne() != 1 || r.GetHeart() != 1 {
		t.Errorf("rollup %+v", r)
	}

	var q struct {
		Repository struct {
			PullRequest struct {
				ReviewThreads struct {
					Nodes []struct {
						Comments struct {
							Nodes []struct {
								Up struct {
									TotalCount int
									Nodes      []struct {
										Content string
										User    struct{ Login string }
									}
								} `graphql:"up: reactions(content: THUMBS_UP, first: 1)"`
								All struct{ TotalCount int } `graphql:"all: reactions(first: 10)"`
							}
						} `graphql:"comments(first: 1)"`
					}
				} `graphql:"reviewThreads(first: 10)"`
			} `graphql:"pullRequest(number: $number)"`
		} `graphql:"repository(owner: \"acme\", name: \"widget\")"`
	}
	if err := f.inst.GraphQL.Query(ctx, &q, map[string]any{"number": githubv4.Int(n)}); err != nil {
		t.Fatal(err)
	}
	c := q.Repository.PullRequest.ReviewThreads.Nodes[0].Comments.Nodes[0]
	if c.Up.TotalCount != 2 || len(c.Up.Nodes) != 1 || c.Up.Nodes[0].Content != "THUMBS_UP" || c.Up.Nodes[0].User.Login != "alice" || c.All.TotalCount != 4 {
		t.Errorf("GraphQL reactions: %+v", c)
	}
}
