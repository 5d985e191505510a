package ghsim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
	"github.com/shurcooL/githubv4"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

type threadsQuery struct {
	Repository struct {
		PullRequest struct {
			ReviewThreads struct {
				PageInfo struct {
					HasNextPage bool
					EndCursor   githubv4.String
				}
				Nodes []struct {
					ID         githubv4.ID
					IsResolved bool
					IsOutdated bool
					Path       string
					Line       *int
					Comments   struct {
						Nodes []struct {
							ID             githubv4.ID
							FullDatabaseID string `graphql:"fullDatabaseId"`
							DatabaseID     int64
							Author         struct{ Login string }
							Body           string
						}
					} `graphql:"comments(first: 50)"`
				}
			} `graphql:"reviewThreads(first: $first, after: $cursor)"`
		} `graphql:"pullRequest(number: $number)"`
	} `graphql:"repository(owner: $owner, name: $name)"`
}

func TestGraphQLReviewThreads(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	n := openPR(t, f)
	_, _, err := f.inst.REST.PullRequests.CreateReview(ctx, "acme", "widget", n, &github.PullRequestReviewRequest{
		Event: github.Ptr("COMMENT"), Body: github.Ptr("review"),
		Comments: []*github.DraftReviewComment{
			{Path: github.Ptr("main.go"), Line: github.Ptr(4), Body: github.Ptr("on hello")},
			{Path: github.Ptr("main.go"), Line: github.Ptr(5), Body: github.Ptr("on world")},
			{Path: github.Ptr("lib/new.go"), Line: github.Ptr(3), Body: github.Ptr("on Two")},
		}})
	if err != nil {
		t.Fatal(err)
	}
	// Page through with first: 2.
	var all []string
	var firstThread githubv4.ID
	vars := map[string]any{"owner": githubv4.String("acme"), "name": githubv4.String("widget"), "number": githubv4.Int(n),
		"first": githubv4.Int(2), "cursor": (*githubv4.String)(nil)}
	pages := 0
	for {
		var q threadsQuery
		if err := f.inst.GraphQL.Query(ctx, &q, vars); err != nil {
			t.Fatal(err)
		}
		pages++
		for _, th := range q.Repository.PullRequest.ReviewThreads.Nodes {
			c := th.Comments.Nodes[0]
			if c.Author.Login != "chakshu[bot]" || c.FullDatabaseID == "" || th.IsOutdated || th.IsResolved {
				t.Errorf("thread = %+v", th)
			}
			all = append(all, c.Body)
			if firstThread == nil {
				firstThread = th.ID
			}
		}
		if !q.Repository.PullRequest.ReviewThreads.PageInfo.HasNextPage {
			break
		}
		vars["cursor"] = githubv4.NewString(q.Repository.PullRequest.ReviewThreads.PageInfo.EndCursor)
	}
	if pages != 2 || strings.Join(all, ",") != "on hello,on world,on Two" {
		t.Fatalf("pages %d threads %v", pages, all)
	}
	// A push that rewrites line 4 outdates the thread on it (and the one
	// on the neighbouring line 5); the thread in lib/new.go stays current.
	f.sim.Commit("acme/widget", "feature", map[string]string{
		"main.go": "package main\n\nfunc main() {\n\tprintln(\"HELLO\")\n\tprintln(\"world\")\n}\n",
	}, "shout")
	threads := f.sim.Threads("acme/widget", n)
	if !threads[0].Outdated || threads[2].Outdated {
		t.Fatalf("outdated = %v %v %v", threads[0].Outdated, threads[1].Outdated, threads[2].Outdated)
	}
	// Resolve over GraphQL.
	var m struct {
		ResolveReviewThread struct {
			Thread struct {
				ID         githubv4.ID
				IsResolved bool
			}
		} `graphql:"resolveReviewThread(input: $input)"`
	}
	// Only a token with Contents: write may resolve (GitHub's rule): the
	// default-scope token is refused, the resolve-scope one succeeds.
	if err := f.inst.GraphQL.Mutate(ctx, &m, githubv4.ResolveReviewThreadInput{ThreadID: firstThread}, nil); err == nil ||
		!strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Fatalf("resolve with contents: read: %v, want FORBIDDEN", err)
	}
	res, err := f.apps.InstallationFor(f.instID, gh.ScopeResolve)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.GraphQL.Mutate(ctx, &m, githubv4.ResolveReviewThreadInput{ThreadID: firstThread}, nil); err != nil {
		t.Fatal(err)
	}
	if !m.ResolveReviewThread.Thread.IsResolved || !f.sim.Threads("acme/widget", n)[0].Resolved {
		t.Fatal("not resolved")
	}
	var v struct{ Viewer struct{ Login string } }
	if err := f.inst.GraphQL.Query(ctx, &v, nil); err != nil || v.Viewer.Login != "chakshu[bot]" {
		t.Fatalf("viewer = %v %v", v, err)
	}
	if f.sim.CallCount("POST /graphql") != 5 { // the refused mutation counts
		t.Errorf("graphql calls = %d", f.sim.CallCount("POST /graphql"))
	}
	if g := f.sim.GraphQLCalls(); g["query repository"] != 2 || g["mutation resolveReviewThread"] != 2 || g["query viewer"] != 1 {
		t.Errorf("graphql field calls = %v", g)
	}
}

func TestGraphQLValidationCatchesInvalidDocument(t *testing.T) {
	s, errs := validatingSim(t)
	s.CreateRepo("acme", "widget", map[string]string{"a": "b\n"})
	appID, _ := s.CreateApp("chakshu")
	inst := s.Install(appID, "acme", nil, nil)
	c := githubv4.NewEnterpriseClient(s.GraphQLURL(), httpClientWithToken(s.InstallationToken(inst)))
	var q struct {
		Repository struct {
			NoSuchField string
		} `graphql:"repository(owner: \"acme\", name: \"widget\")"`
	}
	if err := c.Query(context.Background(), &q, nil); err == nil {
		t.Fatal("invalid document answered without errors")
	}
	if len(*errs) != 1 || !strings.Contains((*errs)[0], "noSuchField") {
		t.Fatalf("errors = %v", *errs)
	}
	if err := ghsimtest.ValidateGraphQL(`{ viewer { login } }`); err != nil {
		t.Fatal(err)
	}
}

func TestGraphQLPaginationLimits(t *testing.T) {
	f := newFixture(t)
	n := openPR(t, f)
	for _, tc := range []struct {
		name, query, want string
	}{
		{"first over 100", `query($n:Int!){repository(owner:"acme",name:"widget"){pullRequest(number:$n){reviewThreads(first:101){totalCount}}}}`, "exceeds the `first` limit of 100"},
		{"no boundary", `query($n:Int!){repository(owner:"acme",name:"widget"){pullRequest(number:$n){reviewThreads{totalCount}}}}`, "You must provide a `first` or `last`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, _ := json.Marshal(map[string]any{"query": tc.query, "variables": map[string]any{"n": n}})
			req, _ := http.NewRequest("POST", f.sim.GraphQLURL(), bytes.NewReader(body))
			resp, err := f.inst.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(out), tc.want) {
				t.Fatalf("answer = %s", out)
			}
		})
	}
}

func TestGraphQLPullRequestLists(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	n := openPR(t, f)
	f.sim.Comment("acme/widget", n, "alice", "hello")
	f.sim.AddLabel("acme/widget", n, "chakshu:review", "alice")
	var q struct {
		Repository struct {
			PullRequest struct {
				Comments struct {
					Nodes []struct {
						Body   string
						Author struct{ Login string }
					}
				} `graphql:"comments(first: 10)"`
				Files struct {
					TotalCount int
					Nodes      []struct {
						Path       string
						ChangeType string
					}
				} `graphql:"files(first: 10)"`
				Labels struct {
					Nodes []struct{ Name string }
				} `graphql:"labels(first: 10)"`
			} `graphql:"pullRequest(number: $number)"`
		} `graphql:"repository(owner: \"acme\", name: \"widget\")"`
	}
	if err := f.inst.GraphQL.Query(ctx, &q, map[string]any{"number": githubv4.Int(n)}); err != nil {
		t.Fatal(err)
	}
	pr := q.Repository.PullRequest
	if len(pr.Comments.Nodes) != 1 || pr.Comments.Nodes[0].Author.Login != "alice" || pr.Files.TotalCount != 2 ||
		pr.Files.Nodes[0].ChangeType != "ADDED" || len(pr.Labels.Nodes) != 1 {
		t.Fatalf("pr = %+v", pr)
	}
}
