package ghsim_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-github/v88/github"
	"golang.org/x/oauth2"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
)

func userClient(t *testing.T, s *ghsim.Sim, login string) *github.Client {
	t.Helper()
	ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: s.UserToken(login), TokenType: "bearer"})
	return gh.NewREST(oauth2.NewClient(context.Background(), ts), s.URL())
}

func status(err error) int {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil {
		return ge.Response.StatusCode
	}
	return 0
}

func numbers(res *github.IssuesSearchResult) []int {
	var out []int
	for _, is := range res.Issues {
		out = append(out, is.GetNumber())
	}
	slices.Sort(out)
	return out
}

// TestIssuesAndSearch: plain issues share numbers with pull requests, read
// like GitHub's (REST, comments), and GET /search/issues answers the
// qualifiers Chakshu's connector relies on, only over the caller's repositories.
func TestIssuesAndSearch(t *testing.T) {
	f := newFixture(t)
	s, ctx := f.sim, context.Background()
	rest := f.inst.REST
	// #1 is a PR, #2 and #3 issues: numbering is shared.
	s.CreateBranch("acme/widget", "feature", "main")
	s.Commit("acme/widget", "feature", map[string]string{"main.go": "package main\n// login fix\n"}, "fix login")
	pr := s.OpenPR("acme/widget", "feature", "main", "Fix login timeout", "Closes the login bug.", "alice", false)
	bug := s.CreateIssue("acme/widget", "Login times out", "Users are logged out after 5 minutes.", "bob", "bug", "auth")
	doc := s.CreateIssue("acme/widget", "Document the API", "", "alice", "docs")
	if pr != 1 || bug != 2 || doc != 3 {
		t.Fatalf("numbers pr=%d bug=%d doc=%d, want 1 2 3", pr, bug, doc)
	}
	s.Comment("acme/widget", bug, "alice", "Seen on staging too: session cookie expires.")
	s.CloseIssue("acme/widget", doc, "")
	// Another repository of the org, not in the installation.
	s.CreateRepo("acme", "secret", map[string]string{"a": "a"})
	hidden := s.CreateIssue("acme/secret", "Login leak", "login", "bob", "bug")

	is, _, err := rest.Issues.Get(ctx, "acme", "widget", bug)
	if err != nil || is.GetTitle() != "Login times out" || is.IsPullRequest() || is.GetState() != "open" || is.GetComments() != 1 ||
		len(is.Labels) != 2 || is.Labels[0].GetName() != "bug" || is.GetUser().GetLogin() != "bob" {
		t.Fatalf("get issue: %v %+v", err, is)
	}
	if is, _, err = rest.Issues.Get(ctx, "acme", "widget", pr); err != nil || !is.IsPullRequest() || is.GetTitle() != "Fix login timeout" {
		t.Fatalf("get PR as issue: %v %+v", err, is)
	}
	if is, _, err = rest.Issues.Get(ctx, "acme", "widget", doc); err != nil || is.GetState() != "closed" || is.GetStateReason() != "completed" {
		t.Fatalf("closed issue: %v %+v", err, is)
	}
	if _, _, err := rest.Issues.Get(ctx, "acme", "widget", 99); status(err) != http.StatusNotFound {
		t.Fatalf("missing issue: %v", err)
	}
	if _, _, err := rest.Issues.Get(ctx, "acme", "secret", hidden); status(err) != http.StatusNotFound {
		t.Fatalf("issue outside the installation: %v", err)
	}
	if _, _, err := rest.PullRequests.Get(ctx, "acme", "widget", bug); status(err) != http.StatusNotFound {
		t.Fatalf("an issue is not a pull request: %v", err)
	}
	cs, _, err := rest.Issues.ListComments(ctx, "acme", "widget", bug, nil)
	if err != nil || len(cs) != 1 || cs[0].GetUser().GetLogin() != "alice" {
		t.Fatalf("issue comments: %v %+v", err, cs)
	}
	if got := s.IssueComments("acme/widget", bug); len(got) != 1 || got[0].Author != "alice" {
		t.Fatalf("IssueComments(issue) = %+v", got)
	}
	// A comment on a plain issue is delivered without pull_request, as GitHub does.
	d := s.DeliveriesOf("issue_comment", "created")
	var payload struct {
		Issue map[string]any `json:"issue"`
	}
	if len(d) != 1 || json.Unmarshal(d[0].Payload, &payload) != nil || payload.Issue["number"] != float64(bug) || payload.Issue["pull_request"] != nil {
		t.Fatalf("issue_comment deliveries: %d %+v", len(d), payload)
	}

	for _, c := range []struct {
		q    string
		want []int
	}{
		{"cookie is:issue repo:acme/widget", []int{bug}},               // comments
		{"login is:issue repo:acme/widget", []int{bug}},                // title, body, kind
		{"login is:pr repo:acme/widget", []int{pr}},                    //
		{"type:pr repo:acme/widget", []int{pr}},                        //
		{"is:issue state:closed repo:acme/widget", []int{doc}},         // state
		{"is:issue is:open repo:acme/widget", []int{bug}},              //
		{"label:bug label:auth is:issue repo:acme/widget", []int{bug}}, // labels (all of them)
		{`-label:bug is:issue repo:acme/widget`, []int{doc}},           // negation
		{"author:alice is:issue repo:acme/widget", []int{doc}},         // author
		{"author:alice is:pr repo:acme/widget", []int{pr}},
		{`"logged out" is:issue repo:acme/widget`, []int{bug}}, // quoted phrase
		{"login is:issue", []int{bug}},                         // no repo: only the installation's repositories
		{"login is:pr", []int{pr}},
		{"login is:issue repo:acme/secret", nil}, // another repository: nothing, not an error
		{"login is:pr org:acme", []int{pr}},
		{"nothing-matches-this is:issue repo:acme/widget", nil},
		{"error:timeout is:issue repo:acme/widget", nil}, // unknown qualifiers are text
	} {
		res, _, err := rest.Search.Issues(ctx, c.q, nil)
		if err != nil || !slices.Equal(numbers(res), c.want) || res.GetTotal() != len(c.want) {
			t.Errorf("search %q: %v %v, want %v", c.q, err, numbers(res), c.want)
		}
		for _, is := range res.Issues {
			if is.GetRepositoryURL() != s.URL()+"repos/acme/widget" {
				t.Errorf("search %q: hit of %s", c.q, is.GetRepositoryURL())
			}
		}
	}
	// Sorting and paging.
	res, resp, err := rest.Search.Issues(ctx, "is:issue repo:acme/widget", &github.SearchOptions{Sort: "created", Order: "asc", ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil || res.GetTotal() != 2 || len(res.Issues) != 1 || res.Issues[0].GetNumber() != bug || resp.NextPage != 2 {
		t.Fatalf("sorted page: %v total=%d %v next=%d", err, res.GetTotal(), numbers(res), resp.NextPage)
	}
	// Refusals: no query; a qualifier the simulator does not evaluate; a
	// query without is:issue / is:pull-request, from any token.
	for _, q := range []string{"", "login is:issue created:>2020-01-01", "login repo:acme/widget", "login -is:issue repo:acme/widget"} {
		if _, _, err := rest.Search.Issues(ctx, q, nil); status(err) != http.StatusUnprocessableEntity {
			t.Errorf("search %q: %v, want 422", q, err)
		}
	}
	alice := userClient(t, s, "alice")
	if _, _, err := alice.Search.Issues(ctx, "login repo:acme/widget", nil); status(err) != http.StatusUnprocessableEntity {
		t.Fatalf("user search without is: %v, want 422", err)
	}
	if res, _, err := alice.Search.Issues(ctx, "login is:issue", nil); err != nil || !slices.Equal(numbers(res), []int{bug}) {
		t.Fatalf("user search: %v %v (alice cannot read acme/secret)", err, numbers(res))
	}
}

// TestOrgMemberships: owners (role admin) and members, seen by the user
// (GET /user/memberships/orgs/{org}) and by the installation
// (GET /orgs/{org}/memberships/{username}); an owner administers every repo.
func TestOrgMemberships(t *testing.T) {
	f := newFixture(t)
	s, ctx := f.sim, context.Background()
	s.SetOrgRole("acme", "olivia", "admin")
	s.SetOrgRole("acme", "bob", "member")
	s.CreateOrg("globex")
	for _, c := range []struct {
		login, org, role string
		status           int
	}{
		{"olivia", "acme", "admin", 200},
		{"bob", "acme", "member", 200},
		{"mallory", "acme", "", 404},
		{"olivia", "globex", "", 404},
		{"olivia", "nope", "", 404},
	} {
		m, _, err := userClient(t, s, c.login).Organizations.GetOrgMembership(ctx, "", c.org)
		if c.status == 200 && (err != nil || m.GetRole() != c.role || m.GetState() != "active" || m.GetOrganization().GetLogin() != c.org || m.GetUser().GetLogin() != c.login) {
			t.Errorf("%s in %s: %v %+v", c.login, c.org, err, m)
		}
		if c.status != 200 && status(err) != c.status {
			t.Errorf("%s in %s: %v, want %d", c.login, c.org, err, c.status)
		}
	}
	if m, _, err := f.inst.REST.Organizations.GetOrgMembership(ctx, "olivia", "acme"); err != nil || m.GetRole() != "admin" {
		t.Fatalf("installation reads a membership: %v %+v", err, m)
	}
	if _, _, err := f.inst.REST.Organizations.GetOrgMembership(ctx, "mallory", "acme"); status(err) != http.StatusNotFound {
		t.Fatalf("non-member: %v", err)
	}
	if _, _, err := userClient(t, s, "mallory").Organizations.GetOrgMembership(ctx, "olivia", "acme"); status(err) != http.StatusNotFound {
		t.Fatalf("an outsider reads a membership: %v", err)
	}
	if _, _, err := f.inst.REST.Organizations.GetOrgMembership(ctx, "", "acme"); status(err) != http.StatusForbidden {
		t.Fatalf("installation token on the user endpoint: %v", err)
	}
	if s.Permission("acme/widget", "olivia") != "admin" || s.Permission("acme/widget", "bob") == "admin" {
		t.Fatalf("permissions olivia=%s bob=%s", s.Permission("acme/widget", "olivia"), s.Permission("acme/widget", "bob"))
	}
	s.SetOrgRole("acme", "olivia", "")
	if _, _, err := userClient(t, s, "olivia").Organizations.GetOrgMembership(ctx, "", "acme"); status(err) != http.StatusNotFound {
		t.Fatalf("removed owner: %v", err)
	}
}
