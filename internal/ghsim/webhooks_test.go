package ghsim_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/examples"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
)

// TestEveryWebhookMatchesGitHubSchemas drives every state change that sends
// a webhook; NewForTest fails the test if any payload does not match
// @octokit/webhooks-schemas.
func TestEveryWebhookMatchesGitHubSchemas(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.sim.CreateBranch("acme/widget", "draft", "main")
	f.sim.Commit("acme/widget", "draft", map[string]string{"x.go": "package x\n"}, "x")
	n := f.sim.OpenPR("acme/widget", "draft", "main", "Draft", "", "alice", true)
	f.sim.ReadyForReview("acme/widget", n, "alice")
	f.sim.AddLabel("acme/widget", n, "chakshu:review", "alice")
	f.sim.RequestReviewers("acme/widget", n, "alice", []string{"bob"}, []string{"security"})
	if _, err := f.inst.REST.Issues.RemoveLabelForIssue(ctx, "acme", "widget", n, "chakshu:review"); err != nil {
		t.Fatal(err)
	}
	// go-github's AddLabelsToIssue posts a bare array, which the current
	// description no longer lists; the documented body is {"labels": [...]}.
	req, _ := f.inst.REST.NewRequest(ctx, "POST", fmt.Sprintf("repos/acme/widget/issues/%d/labels", n), map[string][]string{"labels": {"chakshu:security"}})
	if _, err := f.inst.REST.Do(req, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.inst.REST.PullRequests.RemoveReviewers(ctx, "acme", "widget", n, github.ReviewersRequest{Reviewers: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	f.sim.ForcePush("acme/widget", "draft", map[string]string{"x.go": "package x // v2\n"})
	rv, _, err := f.inst.REST.PullRequests.CreateReview(ctx, "acme", "widget", n, &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"),
		Comments: []*github.DraftReviewComment{{Path: github.Ptr("x.go"), Line: github.Ptr(1), Body: github.Ptr("hm")}}})
	if err != nil {
		t.Fatal(err)
	}
	cs := f.sim.ReviewComments("acme/widget", n)
	f.sim.ReplyToReviewComment("acme/widget", n, cs[0].ID, "alice", "ok")
	f.sim.Comment("acme/widget", n, "alice", "@chakshu review")
	cr, _, err := f.inst.REST.Checks.CreateCheckRun(ctx, "acme", "widget", github.CreateCheckRunOptions{Name: "c", HeadSHA: f.sim.PR("acme/widget", n).HeadSHA})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.inst.REST.Checks.UpdateCheckRun(ctx, "acme", "widget", cr.GetID(), github.UpdateCheckRunOptions{Name: "c", Conclusion: github.Ptr("neutral")}); err != nil {
		t.Fatal(err)
	}
	f.sim.RerequestCheckRun(cr.GetID(), "alice")
	f.sim.ClosePR("acme/widget", n, "alice")
	f.sim.CreateRepo("acme", "other", map[string]string{"a": "b\n"})
	f.sim.AddInstallationRepos(f.instID, "acme/other")
	f.sim.RemoveInstallationRepos(f.instID, "acme/other")
	_ = rv
	want := map[string]bool{}
	for _, d := range f.sim.Deliveries() {
		want[d.Event+"."+d.Action] = true
		if d.Status != 202 {
			t.Errorf("%s.%s delivered with %d %s", d.Event, d.Action, d.Status, d.Err)
		}
	}
	for _, k := range []string{"installation.created", "push.", "pull_request.opened", "pull_request.ready_for_review", "pull_request.labeled",
		"pull_request.unlabeled", "pull_request.review_requested", "pull_request.review_request_removed", "pull_request.synchronize",
		"pull_request_review.submitted", "pull_request_review_comment.created", "issue_comment.created", "check_run.rerequested",
		"pull_request.closed", "installation_repositories.added", "installation_repositories.removed"} {
		if !want[k] {
			t.Errorf("no %s delivery", k)
		}
	}
}

func TestAsyncWebhooks(t *testing.T) {
	s := ghsimtest.New(t, ghsim.Options{AsyncWebhooks: true})
	sink := newHookSink(t, "k")
	s.SetWebhook(sink.srv.URL, "k")
	appID, _ := s.CreateApp("chakshu")
	s.CreateRepo("acme", "widget", map[string]string{"a": "b\n"})
	s.Install(appID, "acme", nil, nil)
	s.Commit("acme/widget", "main", map[string]string{"a": "c\n"}, "c")
	s.WaitDeliveries()
	if len(sink.of("push", "")) != 1 || len(sink.of("installation", "created")) != 1 {
		t.Fatalf("deliveries = %v", s.Deliveries())
	}
}

func TestDeliverGitHubExample(t *testing.T) {
	s := ghsimtest.New(t)
	sink := newHookSink(t, "k")
	s.SetWebhook(sink.srv.URL, "k")
	ex, err := examples.Of("issue_comment", "created")
	if err != nil || len(ex) == 0 {
		t.Fatal(err)
	}
	d := s.DeliverPayload("issue_comment", ex[0].Payload)
	if d.Status != 202 || len(sink.of("issue_comment", "created")) != 1 {
		t.Fatalf("delivery = %+v", d)
	}
}

// A receiver that calls back into the simulator while a synchronous
// delivery is in flight must not deadlock.
func TestSyncWebhookReceiverMayCallBack(t *testing.T) {
	s := ghsimtest.New(t)
	appID, _ := s.CreateApp("chakshu")
	s.CreateRepo("acme", "widget", map[string]string{"a": "b\n"})
	s.CreateBranch("acme/widget", "f", "main")
	s.Commit("acme/widget", "f", map[string]string{"a": "c\n"}, "c")
	inst := s.Install(appID, "acme", nil, nil)
	tok := s.InstallationToken(inst)
	done := make(chan struct{}, 1)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-GitHub-Event") == "pull_request" {
			req, _ := http.NewRequest("POST", s.URL()+"repos/acme/widget/issues/1/comments", strings.NewReader(`{"body":"on it"}`))
			req.Header.Set("Authorization", "token "+tok)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			done <- struct{}{}
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer recv.Close()
	s.SetWebhook(recv.URL, "k")
	s.OpenPR("acme/widget", "f", "main", "t", "", "alice", false)
	<-done
	if got := s.DeliveriesOf("issue_comment", "created"); len(got) != 1 {
		t.Fatalf("issue_comment deliveries = %d", len(got))
	}
}

// GitHub only sends an app the events of repositories it is installed on.
func TestNoWebhooksForUninstalledRepos(t *testing.T) {
	s := ghsimtest.New(t)
	appID, _ := s.CreateApp("chakshu")
	s.CreateRepo("acme", "widget", map[string]string{"a": "b\n"})
	s.CreateRepo("acme", "other", map[string]string{"a": "b\n"})
	s.Install(appID, "acme", []string{"acme/widget"}, nil)
	s.Commit("acme/other", "main", map[string]string{"a": "c\n"}, "c")
	s.Commit("acme/widget", "main", map[string]string{"a": "c\n"}, "c")
	push := s.DeliveriesOf("push")
	if len(push) != 1 || !strings.Contains(string(push[0].Payload), `"full_name":"acme/widget"`) {
		t.Fatalf("push deliveries = %d", len(push))
	}
}
