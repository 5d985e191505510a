package sandbox

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// Every seeded reviewer must pass the same strict parsing a real reviewers
// repository gets, or the sandbox would start with sync errors.
func TestSeededReviewersAreValid(t *testing.T) {
	files, err := readTree("seed/reviewers")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for p, c := range files {
		if !strings.HasSuffix(p, "/reviewer.yaml") {
			continue
		}
		n++
		name := strings.TrimSuffix(p, "/reviewer.yaml")
		if _, err := reviewerconfig.ParseReviewerYAML(name, []byte(c)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if n != 3 {
		t.Fatalf("%d seeded reviewers, want 3", n)
	}
}

// The seeded world has an org owner and a member, and issues (numbered after
// the PRs) that the github connector's tools find with the installation's token.
func TestSeededIssuesAndOwners(t *testing.T) {
	var mu sync.Mutex
	var valErrs []string
	sb, err := Start(Options{Validator: ghsimtest.Spec{}, OnValidationError: func(err error) {
		mu.Lock()
		defer mu.Unlock()
		valErrs = append(valErrs, err.Error())
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if sb.Sim.OrgRole(Org, User) != "admin" || sb.Sim.OrgRole(Org, Writer) != "member" || sb.Sim.OrgRole(Org, Outside) != "" {
		t.Fatalf("org roles: %s=%q %s=%q %s=%q", User, sb.Sim.OrgRole(Org, User), Writer, sb.Sim.OrgRole(Org, Writer), Outside, sb.Sim.OrgRole(Org, Outside))
	}
	sb.InstID = sb.Sim.Install(sb.AppID, Org, nil, nil) // no webhook target: nothing delivered
	apps, err := gh.New(gh.Config{AppID: sb.AppID, PrivateKey: sb.AppKey, BaseURL: sb.Sim.URL(), GraphQLURL: sb.Sim.GraphQLURL()})
	if err != nil {
		t.Fatal(err)
	}
	in, err := apps.Installation(sb.InstID)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, _, err := in.REST.Search.Issues(ctx, "refund is:issue is:open repo:acme/payments-api", nil)
	if err != nil || res.GetTotal() != 2 {
		t.Fatalf("search: %v %+v", err, res)
	}
	for _, is := range res.Issues {
		if is.GetNumber() <= sb.PRs[0].Number {
			t.Fatalf("issue #%d numbered before the seeded PR #%d", is.GetNumber(), sb.PRs[0].Number)
		}
	}
	n := 0
	for _, is := range res.Issues {
		if strings.Contains(is.GetTitle(), "slow") {
			n = is.GetNumber()
		}
	}
	cs, _, err := in.REST.Issues.ListComments(ctx, Org, "payments-api", n, nil)
	if err != nil || len(cs) != 1 || cs[0].GetUser().GetLogin() != User {
		t.Fatalf("comments of #%d: %v %+v", n, err, cs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(valErrs) > 0 {
		t.Fatalf("validation errors: %v", valErrs)
	}
}
