package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/internal/doctor"
	"github.com/chakshu-dev/chakshu/internal/enrol"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

// chakshu enrol against the simulated GitHub with the operator's own
// token: one line per repository, a pull request for the missing workflow
// (the default branch protected and untouched), nothing for the current one,
// and a refusal with the link to commit it by hand when the token may not
// write workflows.
func TestEnrolCommand(t *testing.T) {
	ctx := context.Background()
	sim := ghsimtest.New(t)
	sim.CreateOrg("acme")
	sim.CreateRepo("acme", "missing", map[string]string{"main.go": "package main\n"})
	sim.ProtectBranch("acme/missing", "main")
	sim.CreateRepo("acme", "current", map[string]string{doctor.WorkflowPath: action.WorkflowTemplate})
	for _, r := range []string{"acme/missing", "acme/current"} {
		sim.SetPermission(r, "olu", "admin")
	}
	t.Setenv("CHAKSHU_GITHUB_URL", sim.URL())
	t.Setenv("OPS_TOKEN", sim.PersonalToken("olu", "repo", "workflow"))
	mainBefore := sim.BranchSHA("acme/missing", "main")

	var out, errb bytes.Buffer
	if err := run(ctx, []string{"enrol", "--token-env", "OPS_TOKEN", "--all", "acme"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), errb.String())
	}
	want := []string{
		"acme/current: already current",
		"acme/missing: missing, opened " + sim.PagesURL() + "/acme/missing/pull/1",
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("output:\n%s\nwant:\n%s", out.String(), strings.Join(want, "\n"))
	}
	if sim.BranchSHA("acme/missing", "main") != mainBefore {
		t.Fatal("the protected default branch moved")
	}

	// Again: the open pull request is named, not a second one.
	out.Reset()
	if err := run(ctx, []string{"enrol", "--token-env", "OPS_TOKEN", "acme/missing"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "acme/missing: missing, pull request already open") {
		t.Fatalf("second run: %s", out.String())
	}

	// A token without the workflow scope: refused, the new-file link instead, exit 1.
	sim.CreateRepo("acme", "other", nil)
	sim.SetPermission("acme/other", "olu", "write")
	t.Setenv("OPS_TOKEN", sim.PersonalToken("olu", "repo"))
	out.Reset()
	err := run(ctx, []string{"enrol", "--token-env", "OPS_TOKEN", "acme/other"}, &out, &errb)
	if err == nil || !strings.Contains(out.String(), "acme/other: missing, not permitted: GitHub answered 404") ||
		!strings.Contains(out.String(), "/acme/other/new/main?filename=") {
		t.Fatalf("without the workflow scope: %v\n%s", err, out.String())
	}
	if _, ok := sim.FileAt("acme/other", enrol.Branch, doctor.WorkflowPath); ok {
		t.Fatal("a workflow was written without the scope")
	}
}
