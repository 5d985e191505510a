package gh_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
	"github.com/shurcooL/githubv4"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

type scopeFixture struct {
	sim    *ghsim.Sim
	appID  int64
	key    []byte
	apps   *gh.Apps
	instID int64
	thread string
}

// newScopeFixture: one PR with one Chakshu review thread, on an
// installation with perms (nil: everything Chakshu asks for).
func newScopeFixture(t *testing.T, perms map[string]string) *scopeFixture {
	t.Helper()
	ctx := context.Background()
	s := ghsimtest.New(t)
	appID, key := s.CreateApp("chakshu")
	s.CreateOrg("acme")
	s.CreateUser("alice")
	s.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
	instID := s.Install(appID, "acme", nil, nil)
	s.CreateBranch("acme/widget", "feature", "main")
	s.Commit("acme/widget", "feature", map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, "main")
	n := s.OpenPR("acme/widget", "feature", "main", "Main", "", "alice", false)
	apps := ghtest.Apps(t, s, appID, key)
	in := ghtest.Installation(t, apps, instID)
	if _, _, err := in.REST.PullRequests.CreateReview(ctx, "acme", "widget", n, &github.PullRequestReviewRequest{
		Event: github.Ptr("COMMENT"), Comments: []*github.DraftReviewComment{{Path: github.Ptr("main.go"), Line: github.Ptr(3), Body: github.Ptr("x")}},
	}); err != nil {
		t.Fatal(err)
	}
	if perms != nil {
		s.SetInstallationPermissions(instID, perms)
	}
	return &scopeFixture{sim: s, appID: appID, key: key, apps: apps, instID: instID, thread: s.Threads("acme/widget", n)[0].NodeID}
}

func resolve(c *githubv4.Client, id string) error {
	var m struct {
		ResolveReviewThread struct {
			Thread struct{ IsResolved bool }
		} `graphql:"resolveReviewThread(input: $input)"`
	}
	return c.Mutate(context.Background(), &m, githubv4.ResolveReviewThreadInput{ThreadID: githubv4.ID(id)}, nil)
}

// Only the resolve scope may resolve: the default token is narrowed to
// Contents: read even though the installation holds Contents: write.
func TestOnlyTheResolveScopeResolves(t *testing.T) {
	f := newScopeFixture(t, nil)
	def, _ := f.apps.Installation(f.instID)
	if err := resolve(def.GraphQL, f.thread); err == nil || !strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Fatalf("default-scope resolve: %v, want GitHub's FORBIDDEN", err)
	}
	res, err := f.apps.InstallationFor(f.instID, gh.ScopeResolve)
	if err != nil {
		t.Fatal(err)
	}
	if err := resolve(res.GraphQL, f.thread); err != nil {
		t.Fatalf("resolve-scope resolve: %v", err)
	}
	// The resolve token holds nothing else: it may not create a check run.
	_, _, err = res.REST.Checks.CreateCheckRun(context.Background(), "acme", "widget", github.CreateCheckRunOptions{Name: "x", HeadSHA: f.sim.BranchSHA("acme/widget", "feature")})
	if err == nil {
		t.Fatal("a resolve-scoped token created a check run")
	}
}

// An installation that has not accepted Contents: write: GitHub refuses a
// token asking for it (422); the client asks again for what is granted, so
// the mutation gets GitHub's own FORBIDDEN and everything else still works.
func TestScopeNotGrantedFallsBackToWhatIsGranted(t *testing.T) {
	perms := ghsim.DefaultPermissions()
	perms["contents"] = "read"
	delete(perms, "members") // a user account's installation has no members permission
	f := newScopeFixture(t, perms)

	_, _, err := f.apps.App().Apps.CreateInstallationToken(context.Background(), f.instID, &github.InstallationTokenOptions{
		Permissions: &github.InstallationPermissions{Contents: github.Ptr("write")}})
	if err == nil || !strings.Contains(err.Error(), "The permissions requested are not granted to this installation") {
		t.Fatalf("token with an ungranted permission: %v, want GitHub's 422", err)
	}
	res, err := f.apps.InstallationFor(f.instID, gh.ScopeResolve)
	if err != nil {
		t.Fatal(err)
	}
	if err := resolve(res.GraphQL, f.thread); err == nil || !strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Fatalf("resolve without Contents: write: %v, want FORBIDDEN", err)
	}
	def, _ := f.apps.Installation(f.instID)
	if _, _, err := def.REST.Repositories.Get(context.Background(), "acme", "widget"); err != nil {
		t.Fatalf("default scope without members: %v", err)
	}
	// The default token was minted before the permissions changed (cached);
	// only the refused resolve scope read what the installation holds.
	if n := f.sim.CallCount("GET /app/installations/{installation_id}"); n != 1 {
		t.Fatalf("%d reads of the installation's permissions, want 1", n)
	}
	fresh := ghtest.Apps(t, f.sim, f.appID, f.key)
	def2, _ := fresh.Installation(f.instID)
	if _, _, err := def2.REST.Repositories.Get(context.Background(), "acme", "widget"); err != nil {
		t.Fatalf("a new process, default scope without members: %v", err)
	}
	if n := f.sim.CallCount("GET /app/installations/{installation_id}"); n != 2 {
		t.Fatalf("%d reads of the installation's permissions, want 2", n)
	}
}

// An owner accepts Contents: write (installation new_permissions_accepted):
// after Regrant the resolve token asks for its full scope at once, not
// after regrantAfter; before it, the cut-down token still refuses.
func TestRegrantAfterNewPermissionsAccepted(t *testing.T) {
	perms := ghsim.DefaultPermissions()
	perms["contents"] = "read"
	f := newScopeFixture(t, perms)
	res, err := f.apps.InstallationFor(f.instID, gh.ScopeResolve)
	if err != nil {
		t.Fatal(err)
	}
	if err := resolve(res.GraphQL, f.thread); err == nil {
		t.Fatal("resolved without Contents: write")
	}
	perms["contents"] = "write"
	f.sim.SetInstallationPermissions(f.instID, perms)
	if err := resolve(res.GraphQL, f.thread); err == nil {
		t.Fatal("the cut-down token resolved before Regrant: the test shows nothing")
	}
	f.apps.Regrant(f.instID + 1) // another installation: nothing changes
	if err := resolve(res.GraphQL, f.thread); err == nil {
		t.Fatal("Regrant of another installation renewed this one's token")
	}
	f.apps.Regrant(f.instID)
	if err := resolve(res.GraphQL, f.thread); err != nil {
		t.Fatalf("resolve after Regrant: %v", err)
	}
}
