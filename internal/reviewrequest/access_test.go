package reviewrequest

import (
	"context"
	"testing"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

// The one access rule, as both edges apply it: the allow-list, the owner, or
// write, maintain or admin on the repository; the association short-cuts
// people who cannot have write access without asking GitHub.
func TestAccessCanWrite(t *testing.T) {
	ctx := context.Background()
	s := ghsimtest.New(t)
	appID, key := s.CreateApp("chakshu")
	s.CreateOrg("acme")
	s.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
	s.CreateUser("solo")
	s.CreateRepo("solo", "tool", map[string]string{"main.go": "package main\n"})
	for login, perm := range map[string]string{"wanda": "write", "mo": "maintain", "ada": "admin", "tri": "triage", "reed": "read"} {
		s.SetPermission("acme/widget", login, perm)
	}
	s.SetPermission("acme/widget", "allowed", "read")
	instID := s.Install(appID, "acme", nil, nil)
	soloID := s.Install(appID, "solo", nil, nil)
	apps := ghtest.Apps(t, s, appID, key)
	in := ghtest.Installation(t, apps, instID)
	solo := ghtest.Installation(t, apps, soloID)
	widget := &ent.Repository{Owner: "acme", Name: "widget", FullName: "acme/widget"}
	tool := &ent.Repository{Owner: "solo", Name: "tool", FullName: "solo/tool"}
	a := NewAccess([]string{" Allowed ", ""})
	const perm = "GET /repos/{owner}/{repo}/collaborators/{username}/permission"
	for _, tc := range []struct {
		name, login, assoc string
		repo               *ent.Repository
		want               bool
		asks               int // permission look-ups
	}{
		{"write", "wanda", "COLLABORATOR", widget, true, 1},
		{"maintain reported as write with role maintain", "mo", "MEMBER", widget, true, 1},
		{"admin", "ada", "MEMBER", widget, true, 1},
		{"triage is not write", "tri", "COLLABORATOR", widget, false, 1},
		{"read is not write", "reed", "COLLABORATOR", widget, false, 1},
		{"portal: no association asks GitHub", "wanda", "", widget, true, 1},
		{"portal: read without association", "reed", "", widget, false, 1},
		{"unknown login is a 404: no", "ghost", "", widget, false, 1},
		{"contributors cannot have write", "wanda", "CONTRIBUTOR", widget, false, 0},
		{"strangers cannot have write", "wanda", "NONE", widget, false, 0},
		{"the allow-list, whatever the permission", "ALLOWED", "NONE", widget, true, 0},
		{"the OWNER association", "someone", "OWNER", widget, true, 0},
		{"the repository's owner, from the portal", "Solo", "", tool, true, 0},
		{"no login", "", "OWNER", widget, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := in.REST
			if tc.repo == tool {
				c = solo.REST
			}
			before := s.CallCount(perm)
			got, err := a.CanWrite(ctx, c, tc.repo, tc.login, tc.assoc)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("CanWrite(%q, %q) = %v, want %v", tc.login, tc.assoc, got, tc.want)
			}
			if n := s.CallCount(perm) - before; n != tc.asks {
				t.Errorf("%d permission look-ups, want %d", n, tc.asks)
			}
		})
	}
}
