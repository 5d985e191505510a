package ghsim_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"
)

func TestPullRequestPage(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	n := openPR(t, f)
	pr, _, err := f.inst.REST.PullRequests.Get(ctx, "acme", "widget", n)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.inst.REST.PullRequests.CreateReview(ctx, "acme", "widget", n, &github.PullRequestReviewRequest{
		Event: github.Ptr("COMMENT"), Body: github.Ptr("Checked main.go"),
		Comments: []*github.DraftReviewComment{{Path: github.Ptr("main.go"), Line: github.Ptr(4), Body: github.Ptr("**Use a constant**")}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.inst.REST.Checks.CreateCheckRun(ctx, "acme", "widget", github.CreateCheckRunOptions{Name: "Chakshu · security",
		HeadSHA: pr.GetHead().GetSHA(), Conclusion: github.Ptr("success"), Output: &github.CheckRunOutput{Title: github.Ptr("1 finding"), Summary: github.Ptr("summary <b>text</b>")}}); err != nil {
		t.Fatal(err)
	}
	page := get(t, pr.GetHTMLURL())
	for _, want := range []string{"Say hello", "Checked main.go", "<strong>Use a constant</strong>", "<code>main.go</code> line 4", "Chakshu · security", "1 finding", "summary <b>text</b>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The comment box posts as the chosen user and delivers the webhook.
	form := url.Values{"body": {"@chakshu review"}, "as": {"alice"}}
	resp, err := http.PostForm(pr.GetHTMLURL()+"/comment", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 { // followed the 303 back to the PR
		t.Fatalf("status %d", resp.StatusCode)
	}
	cs := f.sim.IssueComments("acme/widget", n)
	if len(cs) != 1 || cs[0].Author != "alice" || len(f.hooks.of("issue_comment", "created")) != 1 {
		t.Fatalf("comments = %v", cs)
	}
	if diff := get(t, pr.GetDiffURL()); !strings.HasPrefix(diff, "diff --git") {
		t.Errorf("diff page = %q", diff)
	}
}

func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	return string(b)
}

// TestCommitPage: the portal links a reviewer's synced commit to
// /sim/{owner}/{repo}/commit/{sha}; the page shows the commit and its
// changes against its parent, by full sha or a unique prefix.
func TestCommitPage(t *testing.T) {
	f := newFixture(t)
	parent := f.sim.BranchSHA("acme/widget", "main")
	sha := f.sim.Commit("acme/widget", "main", map[string]string{"lib/util.go": "package lib\n\n// Two returns 2.\nfunc Two() int { return 2 }\n"}, "Add <Two>")
	base := f.sim.WebURL() + "/sim/acme/widget/commit/"
	for _, ref := range []string{sha, sha[:10]} {
		page := html.UnescapeString(get(t, base+ref))
		for _, want := range []string{"Add <Two>", sha, "<code>lib/util.go</code>", "+func Two() int { return 2 }", "-func One() int { return 1 }", "/sim/acme/widget/commit/" + parent} {
			if !strings.Contains(page, want) {
				t.Errorf("commit page for %s lacks %q", ref, want)
			}
		}
		if strings.Contains(page, "main.go") {
			t.Errorf("commit page lists an unchanged file")
		}
	}
	for _, bad := range []string{"0000000000000000000000000000000000000000", sha[:5], "main"} {
		resp, err := http.Get(base + bad)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET commit %q: %d, want 404", bad, resp.StatusCode)
		}
	}
}

// TestNewAndEditFilePages: the enrolment links open GitHub's new-file page
// with the name and content filled in from the query, and its edit page
// with the file's content; committing needs write access and a branch that
// takes direct commits, and delivers push as a commit in the browser does.
func TestNewAndEditFilePages(t *testing.T) {
	f := newFixture(t)
	base := f.sim.WebURL() + "/sim/acme/widget"
	q := url.Values{"filename": {".github/workflows/lint.yml"}, "value": {"name: Chakshu\non: workflow_dispatch\n"}}
	page := html.UnescapeString(get(t, base+"/new/main?"+q.Encode()))
	for _, want := range []string{`value=".github/workflows/lint.yml"`, "name: Chakshu\non: workflow_dispatch\n", "Create .github/workflows/lint.yml"} {
		if !strings.Contains(page, want) {
			t.Errorf("new-file page lacks %q", want)
		}
	}
	post := func(path string, form url.Values) (int, string) {
		t.Helper()
		resp, err := http.PostForm(base+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, html.UnescapeString(string(b))
	}
	form := url.Values{"filename": q["filename"], "value": {"name: Chakshu\r\non: workflow_dispatch\r\n"}, "message": {"Add Chakshu"}}
	// mallory may read, not write.
	form.Set("as", "mallory")
	if code, body := post("/new/main", form); code != http.StatusUnprocessableEntity || !strings.Contains(body, "You do not have permission") {
		t.Fatalf("commit as a reader: %d", code)
	}
	f.sim.ProtectBranch("acme/widget", "release")
	f.sim.CreateBranch("acme/widget", "release", "main")
	form.Set("as", "alice")
	if code, body := post("/new/release", form); code != http.StatusUnprocessableEntity || !strings.Contains(body, "Changes must be made through a pull request.") {
		t.Fatalf("commit to a protected branch: %d", code)
	}
	pushes := len(f.hooks.of("push", ""))
	if code, body := post("/new/main", form); code != 200 || !strings.Contains(body, "Add Chakshu") {
		t.Fatalf("commit: %d", code)
	}
	if got, _ := f.sim.FileAt("acme/widget", "main", ".github/workflows/lint.yml"); got != "name: Chakshu\non: workflow_dispatch\n" {
		t.Fatalf("committed %q (a textarea's CRLF must become LF)", got)
	}
	if len(f.hooks.of("push", "")) != pushes+1 {
		t.Errorf("no push delivered for the commit")
	}
	if code, body := post("/new/main", form); code != http.StatusUnprocessableEntity || !strings.Contains(body, "already exists") {
		t.Fatalf("a second new file of the same name: %d", code)
	}
	// The edit page shows the current content and commits an update.
	edit := "/edit/main/.github/workflows/lint.yml"
	if page := html.UnescapeString(get(t, base+edit)); !strings.Contains(page, "on: workflow_dispatch\n") {
		t.Errorf("edit page lacks the file's content")
	}
	if code, _ := post(edit, url.Values{"value": {"name: Chakshu v2\n"}, "as": {"alice"}}); code != 200 {
		t.Fatalf("edit: %d", code)
	}
	if got, _ := f.sim.FileAt("acme/widget", "main", ".github/workflows/lint.yml"); got != "name: Chakshu v2\n" {
		t.Fatalf("edited to %q", got)
	}
	for _, missing := range []string{"/edit/main/nope.txt", "/new/no-such-branch"} {
		resp, err := http.Get(base + missing)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", missing, resp.StatusCode)
		}
	}
}
