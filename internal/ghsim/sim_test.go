package ghsim_test

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/google/go-github/v88/github"
	"github.com/google/uuid"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

// fixture is a sim seeded the way Chakshu's tests will seed it.
type fixture struct {
	sim    *ghsim.Sim
	appID  int64
	key    []byte
	instID int64
	apps   *gh.Apps
	inst   *gh.Installation
	hooks  *hookSink
}

const workflow = "name: Chakshu\non:\n  workflow_dispatch:\n    inputs:\n      run_id: {required: true}\n      pr_number: {required: true}\n      head_sha: {required: true}\njobs: {}\n"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	s := ghsimtest.New(t)
	f := &fixture{sim: s, hooks: newHookSink(t, "s3cret")}
	s.SetWebhook(f.hooks.srv.URL, "s3cret")
	f.appID, f.key = s.CreateApp("chakshu")
	s.CreateOrg("acme")
	s.CreateTeam("acme", "security", "alice", "bob")
	s.CreateUser("mallory")
	s.CreateRepo("acme", "widget", map[string]string{
		"README.md":                     "# widget\n",
		"main.go":                       "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
		"lib/util.go":                   "package lib\n\n// One returns 1.\nfunc One() int { return 1 }\n",
		".github/workflows/chakshu.yml": workflow,
	})
	s.SetPermission("acme/widget", "alice", "write")
	f.instID = s.Install(f.appID, "acme", []string{"acme/widget"}, nil)
	apps, err := gh.New(gh.Config{AppID: f.appID, PrivateKey: f.key, BaseURL: s.URL(), GraphQLURL: s.GraphQLURL(),
		Retry: gh.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	f.apps = apps
	f.inst, err = apps.Installation(f.instID)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// hookSink is a webhook receiver that checks signatures.
type hookSink struct {
	srv    *httptest.Server
	mu     sync.Mutex
	events []receivedHook
}

type receivedHook struct {
	Event, Delivery string
	Payload         map[string]any
}

func newHookSink(t *testing.T, secret string) *hookSink {
	h := &hookSink{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(body)
		if r.Header.Get("X-Hub-Signature-256") != "sha256="+hex.EncodeToString(m.Sum(nil)) {
			t.Errorf("bad signature on %s", r.Header.Get("X-GitHub-Event"))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var p map[string]any
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("payload: %v", err)
		}
		h.mu.Lock()
		h.events = append(h.events, receivedHook{r.Header.Get("X-GitHub-Event"), r.Header.Get("X-GitHub-Delivery"), p})
		h.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookSink) of(event, action string) []receivedHook {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []receivedHook
	for _, e := range h.events {
		if e.Event == event && (action == "" || e.Payload["action"] == action) {
			out = append(out, e)
		}
	}
	return out
}

func TestAppAuthAndInstallations(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	installs, _, err := f.apps.App().Apps.ListInstallations(ctx, nil)
	if err != nil || len(installs) != 1 || installs[0].GetID() != f.instID {
		t.Fatalf("installations = %v, %v", installs, err)
	}
	repos, _, err := f.inst.REST.Apps.ListRepos(ctx, nil)
	if err != nil || repos.GetTotalCount() != 1 || repos.Repositories[0].GetFullName() != "acme/widget" {
		t.Fatalf("repos = %+v, %v", repos, err)
	}
	tok, err := f.inst.Token(ctx)
	if err != nil || !strings.HasPrefix(tok, "ghs_") {
		t.Fatalf("token %q %v", tok, err)
	}
	// No token and a wrong token are 401.
	for _, auth := range []string{"", "token ghs_wrong"} {
		req, _ := http.NewRequest("GET", f.sim.URL()+"repos/acme/widget", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("auth %q: status %d, want 401", auth, resp.StatusCode)
		}
	}
	// A repo outside the installation is 404.
	f.sim.CreateRepo("acme", "secret", map[string]string{"a": "b\n"})
	if _, resp, err := f.inst.REST.Repositories.Get(ctx, "acme", "secret"); err == nil || resp.StatusCode != 404 {
		t.Errorf("outside repo: %v", err)
	}
	perm, _, err := f.inst.REST.Repositories.GetPermissionLevel(ctx, "acme", "widget", "alice")
	if err != nil || perm.GetPermission() != "write" {
		t.Errorf("alice permission = %v %v", perm.GetPermission(), err)
	}
	perm, _, _ = f.inst.REST.Repositories.GetPermissionLevel(ctx, "acme", "widget", "mallory")
	if perm.GetPermission() != "none" {
		t.Errorf("mallory permission = %v", perm.GetPermission())
	}
	if got := len(f.hooks.of("installation", "created")); got != 1 {
		t.Errorf("installation webhooks = %d", got)
	}
}

func TestContentsTreesCompare(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rest := f.inst.REST
	file, dir, _, err := rest.Repositories.GetContents(ctx, "acme", "widget", "main.go", &github.RepositoryContentGetOptions{Ref: "main"})
	if err != nil || dir != nil {
		t.Fatal(err)
	}
	if c, _ := file.GetContent(); !strings.Contains(c, "println") {
		t.Errorf("content = %q", c)
	}
	_, dir, _, err = rest.Repositories.GetContents(ctx, "acme", "widget", "lib", nil)
	if err != nil || len(dir) != 1 || dir[0].GetPath() != "lib/util.go" {
		t.Fatalf("dir = %v %v", dir, err)
	}
	tree, _, err := rest.Git.GetTree(ctx, "acme", "widget", "main", true)
	if err != nil || len(tree.Entries) != 7 { // 4 files + lib, .github, .github/workflows
		t.Fatalf("tree = %d entries, %v", len(tree.Entries), err)
	}
	for _, e := range tree.Entries {
		if e.GetPath() == "lib/util.go" {
			blob, _, err := rest.Git.GetBlob(ctx, "acme", "widget", e.GetSHA())
			if err != nil || blob.GetSize() != len(f.sim.Files("acme/widget", "main")["lib/util.go"]) {
				t.Fatalf("blob = %v %v", blob, err)
			}
		}
	}
	if _, _, err := rest.RateLimit.Get(ctx); err != nil {
		t.Fatal(err)
	}
	base := f.sim.BranchSHA("acme/widget", "main")
	f.sim.CreateBranch("acme/widget", "feature", "main")
	first := f.sim.Commit("acme/widget", "feature", map[string]string{"main.go": "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}, "say hello")
	cmp, _, err := rest.Repositories.CompareCommits(ctx, "acme", "widget", base, first, nil)
	if err != nil || cmp.GetStatus() != "ahead" || cmp.GetAheadBy() != 1 || len(cmp.Files) != 1 {
		t.Fatalf("compare = %v %v", cmp, err)
	}
	if !strings.Contains(cmp.Files[0].GetPatch(), "+\tprintln(\"hello\")") {
		t.Errorf("patch = %q", cmp.Files[0].GetPatch())
	}
	forced := f.sim.ForcePush("acme/widget", "feature", map[string]string{"lib/util.go": ""})
	cmp, _, err = rest.Repositories.CompareCommits(ctx, "acme", "widget", first, forced, nil)
	if err != nil || cmp.GetStatus() != "diverged" || cmp.GetBehindBy() != 1 || cmp.GetMergeBaseCommit().GetSHA() != base {
		t.Fatalf("after force push: status %s behind %d base %s, %v", cmp.GetStatus(), cmp.GetBehindBy(), cmp.GetMergeBaseCommit().GetSHA(), err)
	}
	cm, _, err := rest.Repositories.GetCommit(ctx, "acme", "widget", forced, nil)
	if err != nil || len(cm.Parents) != 1 || cm.Parents[0].GetSHA() != base {
		t.Fatalf("commit = %v %v", cm, err)
	}
	if got := f.hooks.of("push", ""); len(got) != 2 || got[1].Payload["forced"] != true {
		t.Errorf("push hooks = %v", got)
	}
}

// openPR makes a PR that changes main.go and adds lib/new.go.
func openPR(t *testing.T, f *fixture) int {
	t.Helper()
	f.sim.CreateBranch("acme/widget", "feature", "main")
	f.sim.Commit("acme/widget", "feature", map[string]string{
		"main.go":    "package main\n\nfunc main() {\n\tprintln(\"hello\")\n\tprintln(\"world\")\n}\n",
		"lib/new.go": "package lib\n\nfunc Two() int { return 2 }\n",
	}, "change")
	return f.sim.OpenPR("acme/widget", "feature", "main", "Say hello", "Body", "alice", false)
}

func TestPullRequestReviewFlow(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rest := f.inst.REST
	n := openPR(t, f)
	pr, _, err := rest.PullRequests.Get(ctx, "acme", "widget", n)
	if err != nil || pr.GetHead().GetSHA() != f.sim.BranchSHA("acme/widget", "feature") || pr.GetChangedFiles() != 2 {
		t.Fatalf("pr = %v %v", pr, err)
	}
	files, resp, err := rest.PullRequests.ListFiles(ctx, "acme", "widget", n, &github.ListOptions{PerPage: 1})
	if err != nil || len(files) != 1 || resp.NextPage != 2 {
		t.Fatalf("files page 1 = %d next %d %v", len(files), resp.NextPage, err)
	}
	diff, _, err := rest.PullRequests.GetRaw(ctx, "acme", "widget", n, github.RawOptions{Type: github.Diff})
	if err != nil || !strings.Contains(diff, "diff --git a/lib/new.go b/lib/new.go") {
		t.Fatalf("diff = %q %v", diff, err)
	}
	suggestion := "Use a constant.\n\n```suggestion\n\tprintln(greeting)\n```"
	// A comment outside the diff rejects the whole review.
	_, resp, err = rest.PullRequests.CreateReview(ctx, "acme", "widget", n, &github.PullRequestReviewRequest{
		Event: github.Ptr("COMMENT"), Body: github.Ptr("review"),
		Comments: []*github.DraftReviewComment{
			{Path: github.Ptr("main.go"), Line: github.Ptr(4), Side: github.Ptr("RIGHT"), Body: github.Ptr(suggestion)},
			{Path: github.Ptr("README.md"), Line: github.Ptr(1), Body: github.Ptr("not in diff")},
		}})
	if err == nil || resp.StatusCode != 422 {
		t.Fatalf("want 422, got %v", err)
	}
	if got := f.sim.Reviews("acme/widget", n); len(got) != 0 {
		t.Fatalf("rejected review was recorded: %v", got)
	}
	rv, _, err := rest.PullRequests.CreateReview(ctx, "acme", "widget", n, &github.PullRequestReviewRequest{
		Event: github.Ptr("COMMENT"), Body: github.Ptr("review"),
		Comments: []*github.DraftReviewComment{
			{Path: github.Ptr("main.go"), Line: github.Ptr(4), Side: github.Ptr("RIGHT"), Body: github.Ptr(suggestion)},
			{Path: github.Ptr("main.go"), StartLine: github.Ptr(3), Line: github.Ptr(5), Side: github.Ptr("RIGHT"), StartSide: github.Ptr("RIGHT"), Body: github.Ptr("range")},
			{Path: github.Ptr("lib/new.go"), Line: github.Ptr(3), Body: github.Ptr("new file")},
		}})
	if err != nil || rv.GetState() != "COMMENTED" {
		t.Fatalf("review = %v %v", rv, err)
	}
	comments, _, err := rest.PullRequests.ListComments(ctx, "acme", "widget", n, nil)
	if err != nil || len(comments) != 3 || comments[0].GetBody() != suggestion || comments[1].GetStartLine() != 3 {
		t.Fatalf("comments = %v %v", comments, err)
	}
	// go-github's CreateCommentInReplyTo posts a body GitHub's description
	// rejects (no commit_id/path); the replies endpoint is the documented one.
	req, _ := rest.NewRequest(ctx, "POST", fmt.Sprintf("repos/acme/widget/pulls/%d/comments/%d/replies", n, comments[0].GetID()), map[string]string{"body": "thanks"})
	reply := new(github.PullRequestComment)
	_, err = rest.Do(req, reply)
	if err != nil || reply.GetInReplyTo() != comments[0].GetID() {
		t.Fatalf("reply = %v %v", reply, err)
	}
	got, _, err := rest.PullRequests.GetComment(ctx, "acme", "widget", reply.GetID())
	if err != nil || got.GetBody() != "thanks" || got.GetUser().GetLogin() != "chakshu[bot]" {
		t.Fatalf("get comment = %v %v", got, err)
	}
	// Issue comments both ways.
	f.sim.Comment("acme/widget", n, "alice", "@chakshu review")
	if h := f.hooks.of("issue_comment", "created"); len(h) != 1 {
		t.Fatalf("issue_comment hooks = %d", len(h))
	}
	if _, _, err := rest.Issues.CreateComment(ctx, "acme", "widget", n, &github.IssueComment{Body: github.Ptr("queued")}); err != nil {
		t.Fatal(err)
	}
	if is, _, err := rest.Issues.Get(ctx, "acme", "widget", n); err != nil || !is.IsPullRequest() {
		t.Fatalf("issue = %v %v", is, err)
	}
	ics, _, err := rest.Issues.ListComments(ctx, "acme", "widget", n, nil)
	if err != nil || len(ics) != 2 || ics[1].GetUser().GetType() != "Bot" {
		t.Fatalf("issue comments = %v %v", ics, err)
	}
	// Reviewers: request a team, remove it.
	f.sim.RequestReviewers("acme/widget", n, "alice", nil, []string{"security"})
	if h := f.hooks.of("pull_request", "review_requested"); len(h) != 1 || h[0].Payload["requested_team"] == nil {
		t.Fatalf("review_requested hooks = %v", h)
	}
	if _, err := rest.PullRequests.RemoveReviewers(ctx, "acme", "widget", n, github.ReviewersRequest{TeamReviewers: []string{"security"}}); err != nil {
		t.Fatal(err)
	}
	if pr := f.sim.PR("acme/widget", n); len(pr.RequestedTeams) != 0 {
		t.Errorf("teams still requested: %v", pr.RequestedTeams)
	}
	if f.sim.CallCount("POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews") != 2 {
		t.Errorf("calls = %v", f.sim.Calls())
	}
}

func TestChecksAndActions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rest := f.inst.REST
	head := f.sim.BranchSHA("acme/widget", "main")
	cr, _, err := rest.Checks.CreateCheckRun(ctx, "acme", "widget", github.CreateCheckRunOptions{Name: "Chakshu · security", HeadSHA: head, Status: github.Ptr("queued")})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = rest.Checks.UpdateCheckRun(ctx, "acme", "widget", cr.GetID(), github.UpdateCheckRunOptions{Name: "Chakshu · security",
		Conclusion: github.Ptr("success"), DetailsURL: github.Ptr("https://example.invalid/run"),
		Output: &github.CheckRunOutput{Title: github.Ptr("No findings"), Summary: github.Ptr("ok")}})
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := rest.Checks.ListCheckRunsForRef(ctx, "acme", "widget", "main", nil)
	if err != nil || list.GetTotal() != 1 || list.CheckRuns[0].GetConclusion() != "success" || list.CheckRuns[0].GetOutput().GetTitle() != "No findings" {
		t.Fatalf("check runs = %v %v", list, err)
	}

	dispatched := make(chan ghsim.WorkflowRun, 1)
	f.sim.OnDispatch(func(r ghsim.WorkflowRun) { dispatched <- r })
	details, _, err := rest.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", "chakshu.yml", github.CreateWorkflowDispatchEventRequest{
		Ref: "main", Inputs: map[string]any{"run_id": "7"}, ReturnRunDetails: github.Ptr(true)})
	if err != nil || details.GetWorkflowRunID() == 0 || !strings.Contains(details.GetHTMLURL(), "/actions/runs/") {
		t.Fatalf("dispatch = %v %v", details, err)
	}
	run := <-dispatched
	if run.ID != details.GetWorkflowRunID() || run.SHA != head || run.Inputs["run_id"] != "7" || run.IDTokenRequestToken == "" {
		t.Fatalf("run = %+v", run)
	}
	// The runner's ID token request, then verification with go-oidc.
	req, _ := http.NewRequest("GET", run.IDTokenRequestURL+"&audience=chakshu", nil)
	req.Header.Set("Authorization", "bearer "+run.IDTokenRequestToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Value string }
	_ = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	provider, err := oidc.NewProvider(ctx, f.sim.IssuerURL())
	if err != nil {
		t.Fatal(err)
	}
	idt, err := provider.Verifier(&oidc.Config{ClientID: "chakshu"}).Verify(ctx, v.Value)
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	_ = idt.Claims(&claims)
	if claims["workflow_ref"] != "acme/widget/.github/workflows/chakshu.yml@refs/heads/main" || claims["run_id"] != details.GetWorkflowRunID() && claims["run_id"] != itoa(details.GetWorkflowRunID()) || claims["event_name"] != "workflow_dispatch" {
		t.Errorf("claims = %v", claims)
	}
	// A token signed with another key fails verification.
	forged, _ := f.sim.IssueTokenWithClaims(claims, ghsim.TokenOptions{Key: otherKey(t)})
	if _, err := provider.Verifier(&oidc.Config{ClientID: "chakshu"}).Verify(ctx, forged); err == nil {
		t.Error("forged token verified")
	}

	f.sim.CompleteRun(run.ID, "failure")
	wr, _, err := rest.Actions.GetWorkflowRunByID(ctx, "acme", "widget", run.ID)
	if err != nil || wr.GetConclusion() != "failure" {
		t.Fatalf("run = %v %v", wr, err)
	}
	if h := f.hooks.of("workflow_run", "completed"); len(h) != 1 {
		t.Fatalf("workflow_run hooks = %d", len(h))
	}
	// No workflow file → 404; no actions permission → 403.
	_, resp2, err := rest.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", "missing.yml", github.CreateWorkflowDispatchEventRequest{Ref: "main"})
	if err == nil || resp2.StatusCode != 404 {
		t.Errorf("missing workflow: %v", err)
	}
	perms := ghsim.DefaultPermissions()
	delete(perms, "actions")
	f.sim.SetInstallationPermissions(f.instID, perms)
	_, resp2, err = rest.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", "chakshu.yml", github.CreateWorkflowDispatchEventRequest{Ref: "main"})
	if err == nil || resp2.StatusCode != 403 {
		t.Errorf("no actions permission: %v", err)
	}
}

func TestWebhookRedeliveryAndFaults(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	n := openPR(t, f)
	opened := f.sim.DeliveriesOf("pull_request", "opened")
	if len(opened) != 1 || opened[0].Status != 202 {
		t.Fatalf("opened deliveries = %v", opened)
	}
	if err := f.sim.Redeliver(opened[0].ID); err != nil {
		t.Fatal(err)
	}
	got := f.hooks.of("pull_request", "opened")
	if len(got) != 2 || got[0].Delivery != got[1].Delivery {
		t.Fatalf("redelivery = %v", got)
	}
	// GitHub's delivery guids are time-based (version 1) UUIDs (API.md).
	guid, err := uuid.Parse(got[0].Delivery)
	if err != nil || guid.Version() != 1 {
		t.Fatalf("X-GitHub-Delivery %q: version %d, %v; want a version 1 UUID", got[0].Delivery, guid.Version(), err)
	}
	if at := time.Unix(guid.Time().UnixTime()); time.Since(at).Abs() > time.Minute {
		t.Errorf("X-GitHub-Delivery %q says %v, want about now", got[0].Delivery, at)
	}
	// Two 502s then success: the production client retries through them.
	ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}", Kind: ghsimtest.FaultServerError, Times: 2})
	f.sim.ResetCalls()
	if _, _, err := f.inst.REST.PullRequests.Get(ctx, "acme", "widget", n); err != nil {
		t.Fatal(err)
	}
	if c := f.sim.CallCount("GET /repos/{owner}/{repo}/pulls/{pull_number}"); c != 3 {
		t.Errorf("calls = %d, want 3", c)
	}
	ghsimtest.ClearFaults(f.sim)
	ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: "GET /repos/*", Kind: ghsimtest.FaultSecondaryRateLimit, Times: 1})
	ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: "GET /repos/*", Kind: ghsimtest.FaultDrop, Times: 1})
	if _, _, err := f.inst.REST.Repositories.Get(ctx, "acme", "widget"); err != nil {
		t.Fatal(err)
	}
	if ghsimtest.FaultHits(f.sim, 0) != 1 || ghsimtest.FaultHits(f.sim, 1) != 1 {
		t.Errorf("fault hits %d %d", ghsimtest.FaultHits(f.sim, 0), ghsimtest.FaultHits(f.sim, 1))
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// otherKey is a key the simulator does not know (generated once: RSA key
// generation is slow on these cores).
var otherKey = func() func(t *testing.T) *rsa.PrivateKey {
	once := sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })
	return func(t *testing.T) *rsa.PrivateKey {
		k, err := once()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
}()

func TestBodyLimits(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	n := openPR(t, f)
	long := strings.Repeat("é", 65537)
	_, resp, err := f.inst.REST.Issues.CreateComment(ctx, "acme", "widget", n, &github.IssueComment{Body: github.Ptr(long)})
	if err == nil || resp.StatusCode != 422 {
		t.Errorf("long comment: %v", err)
	}
	_, resp, err = f.inst.REST.PullRequests.CreateReview(ctx, "acme", "widget", n, &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr(long)})
	if err == nil || resp.StatusCode != 422 {
		t.Errorf("long review: %v", err)
	}
	if _, _, err := f.inst.REST.Issues.CreateComment(ctx, "acme", "widget", n, &github.IssueComment{Body: github.Ptr(long[:65536*2])}); err != nil {
		t.Errorf("65536 characters: %v", err)
	}
}

func TestStartOnlyOnLoopback(t *testing.T) {
	if _, err := ghsim.Start(ghsim.Options{Addr: "0.0.0.0:0"}); err == nil {
		t.Fatal("listened on all interfaces")
	}
	s, err := ghsim.Start(ghsim.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL = %s", s.URL())
	}
}

// Above 1 MB the contents API's JSON object carries no content (encoding
// "none"); the raw media type still returns the file.
func TestContentsOverOneMB(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rest := f.inst.REST
	f.sim.Commit("acme/widget", "main", map[string]string{"at.txt": strings.Repeat("a", 1<<20), "over.txt": strings.Repeat("b", 1<<20+1)}, "big files")
	for name, want := range map[string]string{"at.txt": "base64", "over.txt": "none"} {
		file, _, _, err := rest.Repositories.GetContents(ctx, "acme", "widget", name, &github.RepositoryContentGetOptions{Ref: "main"})
		if err != nil || file.GetEncoding() != want {
			t.Fatalf("%s: encoding %q, %v; want %q", name, file.GetEncoding(), err, want)
		}
		if want == "none" && file.Content != nil && *file.Content != "" {
			t.Fatalf("%s: content in the JSON object", name)
		}
	}
	req, _ := rest.NewRequest(ctx, "GET", "repos/acme/widget/contents/over.txt?ref=main", nil)
	req.Header.Set("Accept", "application/vnd.github.raw")
	resp, err := rest.BareDo(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if len(b) != 1<<20+1 {
		t.Fatalf("raw: %d bytes", len(b))
	}
}

// A dispatch may carry only the inputs the workflow declares under
// on.workflow_dispatch.inputs: GitHub answers 422 "Unexpected inputs
// provided" naming the others, and a workflow that declares none refuses any.
func TestDispatchRefusesUndeclaredInputs(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rest := f.inst.REST
	f.sim.Commit("acme/widget", "main", map[string]string{".github/workflows/bare.yml": "name: Bare\non: workflow_dispatch\njobs: {}\n"}, "bare workflow")
	for _, tc := range []struct {
		file   string
		inputs map[string]any
		want   string
	}{
		{"chakshu.yml", map[string]any{"run_id": "7", "zeta": "z", "alpha": "a"}, `Unexpected inputs provided: ["alpha", "zeta"]`},
		{"bare.yml", map[string]any{"run_id": "7"}, `Unexpected inputs provided: ["run_id"]`},
	} {
		_, resp, err := rest.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", tc.file,
			github.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: tc.inputs})
		if err == nil || resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s with %v: %v, want 422 %q", tc.file, tc.inputs, err, tc.want)
		}
	}
	if n := len(f.sim.Runs()); n != 0 {
		t.Fatalf("%d runs started by refused dispatches", n)
	}
	// Declared inputs, and none at all, start a run.
	for _, tc := range []struct {
		file   string
		inputs map[string]any
	}{{"chakshu.yml", map[string]any{"run_id": "7", "pr_number": "1", "head_sha": "abc"}}, {"bare.yml", nil}} {
		if _, _, err := rest.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", tc.file,
			github.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: tc.inputs}); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
	}
}

// GitHub limits a dispatch's inputs to 65,535 characters (docs "Workflow
// syntax", on.workflow_dispatch.inputs; ghsim counts them as JSON) and
// starts nothing past it. A run's display title fills the run-name's
// `inputs.a || inputs.b`: the first that is not empty.
func TestDispatchInputsPayloadAndRunName(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.sim.Commit("acme/widget", "main", map[string]string{".github/workflows/named.yml": `name: Named
run-name: "Run ${{ inputs.many || inputs.one }} of ${{ inputs.one }}"
on:
  workflow_dispatch:
    inputs:
      one: {type: string}
      many: {type: string}
jobs: {}
`}, "named workflow")
	dispatch := func(inputs map[string]any) error {
		_, _, err := f.inst.REST.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", "named.yml",
			github.CreateWorkflowDispatchEventRequest{Ref: "main", Inputs: inputs})
		return err
	}
	if err := dispatch(map[string]any{"one": strings.Repeat("x", 65535)}); err == nil || !strings.Contains(err.Error(), "65535") {
		t.Fatalf("inputs over 65,535 characters: %v, want 422", err)
	}
	if n := len(f.sim.Runs()); n != 0 {
		t.Fatalf("%d runs started by a refused dispatch", n)
	}
	for _, tc := range []struct {
		inputs map[string]any
		want   string
	}{
		{map[string]any{"one": "7"}, "Run 7 of 7"},
		{map[string]any{"one": "7", "many": ""}, "Run 7 of 7"},
		{map[string]any{"one": "7", "many": "7,8,9"}, "Run 7,8,9 of 7"},
	} {
		if err := dispatch(tc.inputs); err != nil {
			t.Fatal(err)
		}
		runs := f.sim.Runs()
		if got := runs[len(runs)-1].DisplayTitle; got != tc.want {
			t.Errorf("inputs %v: title %q, want %q", tc.inputs, got, tc.want)
		}
	}
}

// GitHub refuses to dispatch a workflow whose `on` lacks workflow_dispatch
// (422 "Workflow does not have 'workflow_dispatch' trigger"), in whichever
// form `on` names its events, and starts no run.
func TestDispatchNeedsTheTrigger(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.sim.Commit("acme/widget", "main", map[string]string{
		".github/workflows/push.yml":   "name: Push\non: push\njobs: {}\n",
		".github/workflows/events.yml": "name: Events\non: [push, pull_request]\njobs: {}\n",
		".github/workflows/map.yml":    "name: Map\non:\n  push:\n    branches: [main]\njobs: {}\n",
		".github/workflows/list.yml":   "name: List\non: [push, workflow_dispatch]\njobs: {}\n",
		".github/workflows/broken.yml": "name: Broken\non: [workflow_dispatch\n",
	}, "workflows")
	for _, file := range []string{"push.yml", "events.yml", "map.yml", "broken.yml"} {
		_, resp, err := f.inst.REST.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", file,
			github.CreateWorkflowDispatchEventRequest{Ref: "main"})
		if err == nil || resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(err.Error(), "Workflow does not have 'workflow_dispatch' trigger") {
			t.Fatalf("%s: %v, want 422 naming the trigger", file, err)
		}
	}
	if n := len(f.sim.Runs()); n != 0 {
		t.Fatalf("%d runs started by refused dispatches", n)
	}
	if _, _, err := f.inst.REST.Actions.CreateWorkflowDispatchEventByFileName(ctx, "acme", "widget", "list.yml",
		github.CreateWorkflowDispatchEventRequest{Ref: "main"}); err != nil {
		t.Fatalf("list.yml names workflow_dispatch: %v", err)
	}
}

// Listing check runs keeps only the newest run of each name unless the
// caller asks for filter=all (OpenAPI checks/list-for-ref: default latest).
func TestCheckRunsListLatestByDefault(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	rest := f.inst.REST
	head := f.sim.BranchSHA("acme/widget", "main")
	var ids []int64
	for _, name := range []string{"Chakshu · security", "Chakshu · security", "Chakshu · style"} {
		cr, _, err := rest.Checks.CreateCheckRun(ctx, "acme", "widget", github.CreateCheckRunOptions{Name: name, HeadSHA: head})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, cr.GetID())
	}
	cases := []struct {
		name   string
		filter *string
		want   []int64
	}{
		{"default is latest", nil, []int64{ids[2], ids[1]}},
		{"latest", github.Ptr("latest"), []int64{ids[2], ids[1]}},
		{"all", github.Ptr("all"), []int64{ids[2], ids[1], ids[0]}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			list, _, err := rest.Checks.ListCheckRunsForRef(ctx, "acme", "widget", head, &github.ListCheckRunsOptions{Filter: tc.filter})
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, cr := range list.CheckRuns {
				got = append(got, cr.GetID())
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || list.GetTotal() != len(tc.want) {
				t.Fatalf("listed %v (total %d), want %v", got, list.GetTotal(), tc.want)
			}
		})
	}
}
