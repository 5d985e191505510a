package ghsim_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

// section is the part of page from the element with id on to the next
// sibling of its kind ("thread" boxes, checks).
func section(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("page has no element %s", id)
	}
	rest := page[i:]
	if j := strings.Index(rest, "</details>"); j >= 0 {
		return rest[:j]
	}
	return rest
}

// A PR's pages render what Chakshu posts as GitHub renders it: Markdown
// (GFM) through GitHub's allow-list, suggestions as "Suggested change"
// diffs of the commented lines, threads collapsed and labelled once
// resolved or outdated, current threads on their diff line, check
// summaries rendered, untrusted HTML kept inert.
func TestPullPagesRenderAsGitHub(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	n := openPR(t, f)
	rest := f.inst.REST
	pr, _, err := rest.PullRequests.Get(ctx, "acme", "widget", n)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Join([]string{
		"**Chakshu · security** — 2 findings",
		"",
		"| file | line |",
		"|---|---|",
		"| `main.go` | 4 |",
		"",
		"- [x] read main.go",
		"- [ ] ran the tests",
		"",
		"<details><summary>What was checked</summary>",
		"",
		"Files: `main.go`",
		"",
		"</details>",
		"",
		"<!-- chakshu:review run=42 -->",
		"",
		"```go",
		"func main() {}",
		"```",
		"",
		"[the run](https://example.com/runs/42) <script>alert(1)</script><img src=x onerror=alert(2)> [bad](javascript:alert(3))",
	}, "\n")
	suggestion := "Print both at once.\n\n```suggestion\n\tprintln(\"hello, world\")\n```"
	if _, _, err := rest.PullRequests.CreateReview(ctx, "acme", "widget", n, &github.PullRequestReviewRequest{
		Event: github.Ptr("COMMENT"), Body: github.Ptr(body),
		Comments: []*github.DraftReviewComment{
			{Path: github.Ptr("main.go"), StartLine: github.Ptr(4), Line: github.Ptr(5), Side: github.Ptr("RIGHT"), Body: github.Ptr(suggestion)},
			{Path: github.Ptr("lib/new.go"), Line: github.Ptr(3), Body: github.Ptr("Name the *constant*.")},
		}}); err != nil {
		t.Fatal(err)
	}
	var sugID, resolvedID int64
	for _, c := range f.sim.ReviewComments("acme/widget", n) {
		if c.Path == "main.go" {
			sugID = c.ID
		} else {
			resolvedID = c.ID
		}
	}
	for _, th := range f.sim.Threads("acme/widget", n) {
		if th.Path == "lib/new.go" {
			f.sim.ResolveThread(th.NodeID, "alice", true)
		}
	}
	if _, _, err := rest.Checks.CreateCheckRun(ctx, "acme", "widget", github.CreateCheckRunOptions{Name: "Chakshu · security",
		HeadSHA: pr.GetHead().GetSHA(), Status: github.Ptr("completed"), Conclusion: github.Ptr("neutral"),
		Output: &github.CheckRunOutput{Title: github.Ptr("2 findings"), Summary: github.Ptr("### Findings\n\n1. **major** SQL built from strings")}}); err != nil {
		t.Fatal(err)
	}

	resp, err := http.Get(pr.GetHTMLURL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP = %q", csp)
	}
	page := get(t, pr.GetHTMLURL())
	for _, want := range []string{
		"<strong>Chakshu · security</strong>",
		"<table>", "<th>file</th>", "<td><code>main.go</code></td>",
		`<input checked="" disabled="" type="checkbox"`, `<input disabled="" type="checkbox"`,
		"<details><summary>What was checked</summary>",
		`<code class="language-go">func main() {}`,
		`<a href="https://example.com/runs/42"`,
		"<h3>Findings</h3>", "<strong>major</strong> SQL built from strings", `class="tag neutral">completed · neutral`,
		"Suggested change",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("conversation lacks %q", want)
		}
	}
	for _, bad := range []string{"chakshu:review", "<script>alert", "onerror", "javascript:", "```"} {
		if strings.Contains(page, bad) {
			t.Errorf("conversation shows %q", bad)
		}
	}
	// The suggestion replaces lines 4–5 of main.go at the commented commit.
	sug := section(t, page, "thread-"+itoa64(sugID))
	for _, want := range []string{
		`<tr class="del"><td class="num">4</td><td class="code"><span class="sign">-</span>	println(&#34;hello&#34;)</td></tr>`,
		`<tr class="del"><td class="num">5</td><td class="code"><span class="sign">-</span>	println(&#34;world&#34;)</td></tr>`,
		`<tr class="add"><td class="num"></td><td class="code"><span class="sign">+</span>	println(&#34;hello, world&#34;)</td></tr>`,
		"lines 4–5",
	} {
		if !strings.Contains(sug, want) {
			t.Errorf("suggestion lacks %q:\n%s", want, sug)
		}
	}
	if !regexp.MustCompile(`<details class="thread" id="thread-` + itoa64(sugID) + `" open>`).MatchString(page) {
		t.Error("the current thread is not open")
	}
	res := section(t, page, "thread-"+itoa64(resolvedID))
	if !strings.HasPrefix(res, `id="thread-`+itoa64(resolvedID)+`">`) || !strings.Contains(res, `<span class="tag resolved">Resolved</span> <span class="meta">by alice</span>`) ||
		!strings.Contains(res, "<em>constant</em>") {
		t.Errorf("resolved thread not collapsed and labelled:\n%s", res)
	}

	// Files changed: each current thread under its line.
	files := get(t, pr.GetHTMLURL()+"/files")
	row5 := `<td class="num"></td><td class="num">5</td><td class="code">&#43;	println(&#34;world&#34;)</td></tr>`
	i := strings.Index(files, row5)
	if i < 0 || !strings.HasPrefix(strings.TrimSpace(files[i+len(row5):]), `<tr class="thread-row"><td colspan="3"><details class="thread" id="thread-`+itoa64(sugID)+`"`) {
		t.Errorf("the suggestion thread is not under main.go line 5:\n%s", files)
	}
	row3 := `<td class="num">3</td><td class="code">&#43;func Two() int { return 2 }</td></tr>`
	if j := strings.Index(files, row3); j < 0 || !strings.HasPrefix(strings.TrimSpace(files[j+len(row3):]), `<tr class="thread-row"><td colspan="3"><details class="thread" id="thread-`+itoa64(resolvedID)+`">`) {
		t.Errorf("the resolved thread is not under lib/new.go line 3")
	}

	// A push that changes the commented lines outdates the thread: it is
	// collapsed and labelled in the conversation and leaves the diff.
	f.sim.Commit("acme/widget", "feature", map[string]string{"main.go": "package main\n\nfunc main() {\n\tprintln(\"hello, world\")\n}\n"}, "suggestion applied")
	page = get(t, pr.GetHTMLURL())
	out := section(t, page, "thread-"+itoa64(sugID))
	if !strings.HasPrefix(out, `id="thread-`+itoa64(sugID)+`">`) || !strings.Contains(out, `<span class="tag outdated">Outdated</span>`) {
		t.Errorf("outdated thread not collapsed and labelled:\n%s", out)
	}
	if files := get(t, pr.GetHTMLURL()+"/files"); strings.Contains(files, "thread-"+itoa64(sugID)) {
		t.Error("an outdated thread is still placed on the diff")
	}
	// Check runs render their summary on their own page too.
	checks := f.sim.CheckRuns("acme/widget")
	cp := get(t, f.sim.PagesURL()+"/acme/widget/runs/"+itoa64(checks[0].ID))
	if !strings.Contains(cp, "<h3>Findings</h3>") || !strings.Contains(cp, "completed · neutral") {
		t.Errorf("check page:\n%s", cp)
	}
}

func itoa64(n int64) string { return strconvFormat(n) }

func strconvFormat(n int64) string { return strconv.FormatInt(n, 10) }

func newMount(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func installationClient(t *testing.T, f *fixture) *github.Client {
	t.Helper()
	apps, err := gh.New(gh.Config{AppID: f.appID, PrivateKey: f.key, BaseURL: f.sim.URL(), GraphQLURL: f.sim.GraphQLURL()})
	if err != nil {
		t.Fatal(err)
	}
	in, err := apps.Installation(f.instID)
	if err != nil {
		t.Fatal(err)
	}
	return in.REST
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The Actions run page carries the runner's log so far, and its log
// endpoint answers what was written after an offset with the run's status,
// until the run completes; the log stays afterwards.
func TestActionsRunPageLog(t *testing.T) {
	var mu sync.Mutex
	logs := map[int64][]byte{}
	s := ghsimtest.New(t, ghsim.Options{RunLog: func(id int64) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		return append([]byte(nil), logs[id]...), nil
	}})
	s.CreateOrg("acme")
	s.CreateRepo("acme", "widget", map[string]string{"README.md": "x", ".github/workflows/chakshu.yml": workflow})
	var runs []ghsim.WorkflowRun
	s.OnDispatch(func(w ghsim.WorkflowRun) { mu.Lock(); runs = append(runs, w); mu.Unlock() })
	appID, key := s.CreateApp("chakshu")
	inst := s.Install(appID, "acme", nil, nil)
	f := &fixture{sim: s, appID: appID, key: key, instID: inst}
	client := installationClient(t, f)
	if _, _, err := client.Actions.CreateWorkflowDispatchEventByFileName(context.Background(), "acme", "widget", "chakshu.yml",
		github.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: map[string]any{"run_id": "7"}}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(runs) == 1 })
	run := runs[0]
	s.StartRun(run.ID)
	write := func(line string) {
		mu.Lock()
		logs[run.ID] = append(logs[run.ID], line...)
		mu.Unlock()
	}
	write("::add-mask::ghs_secret\nChakshu run 7 with ghs_secret\ntool read_file {\"path\":\"<main.go>\"}\n")
	page := get(t, run.HTMLURL)
	if strings.Contains(page, "ghs_secret") || !strings.Contains(page, "Chakshu run 7 with ***") {
		t.Fatalf("a masked value is shown:\n%s", page)
	}
	if !strings.Contains(page, `tool read_file {&#34;path&#34;:&#34;&lt;main.go&gt;&#34;}`) || !strings.Contains(page, `src="/sim/-/log.js"`) {
		t.Fatalf("run page:\n%s", page)
	}
	type answer struct {
		Log, Status, Conclusion string
		Next                    int
	}
	poll := func(off int) answer {
		var a answer
		if err := json.Unmarshal([]byte(get(t, run.HTMLURL+"/log?offset="+strconvFormat(int64(off)))), &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	first := poll(0)
	if first.Status != "in_progress" || !strings.HasPrefix(first.Log, "Chakshu run 7 with ***\ntool read_file") || strings.Contains(first.Log, "ghs_secret") {
		t.Fatalf("first poll = %+v", first)
	}
	write("tool search_code {}\ntool gl") // a line being written waits for its end
	second := poll(first.Next)
	if second.Log != "tool search_code {}\n" || second.Next != first.Next+len(second.Log) {
		t.Fatalf("second poll = %+v", second)
	}
	if again := poll(second.Next); again.Log != "" || again.Next != second.Next {
		t.Fatalf("nothing new, got %+v", again)
	}
	if past := poll(second.Next + 1); past.Log != "" || past.Next != second.Next { // an offset past the end starts over from the end
		t.Fatalf("offset past the end: %+v", past)
	}
	write("ob {}\n::error::boom ghs_secret")
	s.CompleteRun(run.ID, "success")
	done := poll(second.Next)
	if done.Status != "completed" || done.Conclusion != "success" || done.Log != "tool glob {}\nError: boom ***" {
		t.Fatalf("after completion: %+v", done)
	}
	if page := get(t, run.HTMLURL); !strings.Contains(page, "tool search_code {}") || !strings.Contains(page, `data-status="completed"`) {
		t.Fatalf("the log is not kept after the run:\n%s", page)
	}
	// The script the page loads is served, and a run of another repository is not.
	if js := get(t, s.PagesURL()+"/-/log.js"); !strings.Contains(js, "offset") {
		t.Fatalf("log.js = %q", js)
	}
	resp, err := http.Get(s.PagesURL() + "/acme/other/actions/runs/" + strconvFormat(run.ID))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("run under another repository: %d", resp.StatusCode)
	}
}

// With PagesURL set, html_url fields and the pages' links name that address
// (the sandbox serves the pages on Chakshu's own listener).
func TestPagesURL(t *testing.T) {
	s := ghsimtest.New(t, ghsim.Options{PagesURL: "http://127.0.0.1:8123/"})
	if s.PagesURL() != "http://127.0.0.1:8123/sim" {
		t.Fatalf("PagesURL = %q", s.PagesURL())
	}
	s.CreateOrg("acme")
	s.CreateRepo("acme", "widget", map[string]string{"a": "b"})
	s.CreateBranch("acme/widget", "f", "main")
	s.Commit("acme/widget", "f", map[string]string{"a": "c"}, "c")
	n := s.OpenPR("acme/widget", "f", "main", "T", "", "acme", false)
	appID, key := s.CreateApp("chakshu")
	client := installationClient(t, &fixture{sim: s, appID: appID, key: key, instID: s.Install(appID, "acme", nil, nil)})
	pr, _, err := client.PullRequests.Get(context.Background(), "acme", "widget", n)
	if err != nil {
		t.Fatal(err)
	}
	if u := pr.GetHTMLURL(); u != "http://127.0.0.1:8123/sim/acme/widget/pull/"+strconvFormat(int64(n)) {
		t.Fatalf("html_url = %q", u)
	}
	// The handler serves the same pages wherever it is mounted; an owner
	// lists its repositories (the start-up line links /sim/acme).
	srv := newMount(t, s.PagesHandler())
	if page := get(t, srv+"/sim/acme"); !strings.Contains(page, `href="/sim/acme/widget"`) {
		t.Fatalf("owner page:\n%s", page)
	}
	resp, err := http.Get(srv + "/sim/acme/widget/pull/" + strconvFormat(int64(n)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") == "" {
		t.Fatalf("mounted PR page: %d", resp.StatusCode)
	}
	resp, err = http.Get(srv + "/sim/nobody")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("unknown owner: %d", resp.StatusCode)
	}
}
