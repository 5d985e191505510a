package enrol_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/internal/doctor"
	"github.com/chakshu-dev/chakshu/internal/enrol"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "token "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func client(sim *ghsim.Sim, token string) *github.Client {
	return gh.NewREST(&http.Client{Transport: bearer{token}}, sim.URL())
}

var cfg = enrol.Config{Template: action.WorkflowTemplate, Version: "dev"}

// world: acme/missing (protected default branch, no workflow), acme/current
// (the template), acme/old (a workflow without workflow_dispatch).
func world(t *testing.T, perms map[string]string) (*ghsim.Sim, int64) {
	sim := ghsimtest.New(t)
	appID, _ := sim.CreateApp("chakshu")
	sim.CreateOrg("acme")
	sim.CreateRepo("acme", "missing", map[string]string{"main.go": "package main\n"})
	sim.ProtectBranch("acme/missing", "main")
	sim.CreateRepo("acme", "current", map[string]string{doctor.WorkflowPath: action.WorkflowTemplate})
	sim.CreateRepo("acme", "old", map[string]string{doctor.WorkflowPath: "on: push\njobs: {}\n"})
	return sim, sim.Install(appID, "acme", nil, perms)
}

func withWorkflows() map[string]string {
	p := ghsim.DefaultPermissions()
	p["workflows"] = "write"
	return p
}

func TestEnrolOpensOnePullRequestNeverPushingToTheDefaultBranch(t *testing.T) {
	ctx := context.Background()
	sim, inst := world(t, withWorkflows())
	c := client(sim, sim.InstallationToken(inst))
	mainBefore := sim.BranchSHA("acme/missing", "main")

	out, err := enrol.Enrol(ctx, c, cfg, "acme", "missing")
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != enrol.Opened || out.Before.State != doctor.WorkflowMissing || out.Pull == nil {
		t.Fatalf("outcome %+v", out)
	}
	if got := sim.BranchSHA("acme/missing", "main"); got != mainBefore {
		t.Fatalf("the protected default branch moved: %s → %s", mainBefore, got)
	}
	if got, ok := sim.FileAt("acme/missing", enrol.Branch, doctor.WorkflowPath); !ok || got != action.WorkflowTemplate {
		t.Fatalf("%s on %s is not the template (present %v)", doctor.WorkflowPath, enrol.Branch, ok)
	}
	pr := sim.PR("acme/missing", out.Pull.Number)
	if pr.HeadRef != enrol.Branch || pr.BaseRef != "main" || pr.State != "open" {
		t.Fatalf("pull request %+v", pr)
	}

	// Again: the open pull request is reused, never a second one, and
	// nothing is committed again.
	puts := sim.Calls()["PUT /repos/{owner}/{repo}/contents/{path}"]
	again, err := enrol.Enrol(ctx, c, cfg, "acme", "missing")
	if err != nil {
		t.Fatal(err)
	}
	if again.Action != enrol.Reused || again.Pull.Number != out.Pull.Number {
		t.Fatalf("second enrolment %+v, want the pull request #%d reused", again, out.Pull.Number)
	}
	if n := sim.Calls()["POST /repos/{owner}/{repo}/pulls"]; n != 1 {
		t.Fatalf("%d pull requests created, want 1", n)
	}
	if n := sim.Calls()["PUT /repos/{owner}/{repo}/contents/{path}"]; n != puts {
		t.Fatalf("the unchanged template was committed again (%d → %d)", puts, n)
	}

	// Its state is listed.
	w, p, err := enrol.Status(ctx, c, cfg, "acme", "missing", "main")
	if err != nil || w.State != doctor.WorkflowMissing || p == nil || p.Number != out.Pull.Number || p.State != "open" {
		t.Fatalf("status %+v %+v %v", w, p, err)
	}
	sim.MergePR("acme/missing", out.Pull.Number, "alice")
	if _, p, _ := enrol.Status(ctx, c, cfg, "acme", "missing", "main"); p == nil || p.State != "merged" {
		t.Fatalf("after the merge the pull request is %+v, want merged", p)
	}
}

func TestEnrolStates(t *testing.T) {
	ctx := context.Background()
	sim, inst := world(t, withWorkflows())
	c := client(sim, sim.InstallationToken(inst))
	for _, tc := range []struct {
		repo   string
		before doctor.WorkflowState
		action enrol.Action
	}{
		{"current", doctor.WorkflowCurrent, enrol.Current},
		{"old", doctor.WorkflowNotDispatchable, enrol.Opened},
	} {
		t.Run(tc.repo, func(t *testing.T) {
			out, err := enrol.Enrol(ctx, c, cfg, "acme", tc.repo)
			if err != nil {
				t.Fatal(err)
			}
			if out.Before.State != tc.before || out.Action != tc.action {
				t.Fatalf("got %s/%s, want %s/%s (%s)", out.Before.State, out.Action, tc.before, tc.action, out.Before.Detail)
			}
		})
	}
	if got, _ := sim.FileAt("acme/old", "main", doctor.WorkflowPath); got != "on: push\njobs: {}\n" {
		t.Fatal("the default branch's workflow was changed")
	}
	if _, ok := sim.FileAt("acme/current", enrol.Branch, doctor.WorkflowPath); ok {
		t.Fatal("a current repository got an onboarding branch")
	}
}

func TestEnrolWithoutWorkflowsPermissionIsNotPermitted(t *testing.T) {
	ctx := context.Background()
	sim, inst := world(t, nil) // the default set: no workflows permission
	out, err := enrol.Enrol(ctx, client(sim, sim.InstallationToken(inst)), cfg, "acme", "missing")
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != enrol.NotPermitted || !strings.Contains(out.Reason, "403") || !strings.Contains(out.Reason, "workflows") {
		t.Fatalf("outcome %+v, want not permitted for lack of workflows", out)
	}
	if n := sim.Calls()["POST /repos/{owner}/{repo}/pulls"]; n != 0 {
		t.Fatalf("%d pull requests opened without a workflow on the branch", n)
	}
	// The branch it made for the refused file is gone again.
	if sha := sim.BranchSHA("acme/missing", enrol.Branch); sha != "" {
		t.Fatalf("the refused enrolment left %s at %s", enrol.Branch, sha)
	}
}

func TestEnrolWithPersonalTokens(t *testing.T) {
	ctx := context.Background()
	sim, _ := world(t, nil)
	sim.SetPermission("acme/missing", "olu", "write")
	// A classic token without the workflow scope: GitHub answers 404.
	out, err := enrol.Enrol(ctx, client(sim, sim.PersonalToken("olu", "repo")), cfg, "acme", "missing")
	if err != nil || out.Action != enrol.NotPermitted || !strings.Contains(out.Reason, "404") {
		t.Fatalf("repo scope only: %+v %v", out, err)
	}
	if sha := sim.BranchSHA("acme/missing", enrol.Branch); sha != "" {
		t.Fatalf("the refused enrolment left %s at %s", enrol.Branch, sha)
	}
	out, err = enrol.Enrol(ctx, client(sim, sim.PersonalToken("olu", "repo", "workflow")), cfg, "acme", "missing")
	if err != nil || out.Action != enrol.Opened {
		t.Fatalf("with the workflow scope: %+v %v", out, err)
	}
	if pr := sim.PR("acme/missing", out.Pull.Number); pr.Author != "olu" {
		t.Fatalf("the pull request is by %s, want the operator", pr.Author)
	}
}

// The simulator refuses what Chakshu must never do: commit to a protected
// default branch, or write a workflow without the workflows permission.
func TestSimulatorRefusals(t *testing.T) {
	sim, inst := world(t, withWorkflows())
	tok := sim.InstallationToken(inst)
	put := func(repo, path, branch string) int {
		b, _ := json.Marshal(map[string]string{"message": "m", "content": base64.StdEncoding.EncodeToString([]byte("x")), "branch": branch})
		req, _ := http.NewRequest("PUT", sim.URL()+"repos/acme/"+repo+"/contents/"+path, strings.NewReader(string(b)))
		req.Header.Set("Authorization", "token "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := put("missing", "README.md", "main"); st != http.StatusConflict {
		t.Fatalf("commit to the protected default branch answered %d, want 409", st)
	}
	if st := put("current", "README.md", "main"); st != http.StatusCreated {
		t.Fatalf("commit to an unprotected branch answered %d, want 201", st)
	}
	sim.SetInstallationPermissions(inst, ghsim.DefaultPermissions())
	if st := put("current", ".github/workflows/x.yml", "main"); st != http.StatusForbidden {
		t.Fatalf("a workflow write without workflows answered %d, want 403", st)
	}
}

func TestLinks(t *testing.T) {
	u, err := url.Parse(enrol.NewFileURL("https://ghe.example.com/", "acme/widget", "main", action.WorkflowTemplate))
	if err != nil {
		t.Fatal(err)
	}
	if u.Host != "ghe.example.com" || u.Path != "/acme/widget/new/main" {
		t.Fatalf("new-file URL %s", u)
	}
	if u.Query().Get("filename") != doctor.WorkflowPath || u.Query().Get("value") != action.WorkflowTemplate {
		t.Fatal("the new-file URL does not carry the path and the template")
	}
	if got, want := enrol.EditFileURL("https://github.com", "acme/widget", "trunk"), "https://github.com/acme/widget/edit/trunk/.github/workflows/chakshu.yml"; got != want {
		t.Fatalf("edit URL %s, want %s", got, want)
	}
}
