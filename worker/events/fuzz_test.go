package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent/webhookevent"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/server/webhook/webhooktest"
	"github.com/chakshu-dev/chakshu/worker/events"
)

// FuzzHandlePayload: whatever payload arrives under whatever event name, the
// worker decodes and handles it (against a simulated GitHub, on the real
// database) without a panic, and records an outcome: done, or failed with an
// error that PostgreSQL can store (no NUL, valid UTF-8). Seeds: every
// @octokit/webhooks-examples payload of the events Chakshu handles, and
// payloads aimed at a real installation, repository and pull request.
func FuzzHandlePayload(f *testing.F) {
	ctx := context.Background()
	db := storetest.Open(f, "sqlite")
	sim := ghsimtest.New(f)
	appID, pem := sim.CreateApp(slug)
	sim.CreateOrg("acme")
	sim.CreateUser("alice")
	sim.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n", ".github/workflows/chakshu.yml": action.WorkflowTemplate})
	sim.SetPermission(repoFN, "alice", "write")
	instID := sim.Install(appID, "acme", nil, nil)
	sim.CreateBranch(repoFN, "change", "main")
	sim.Commit(repoFN, "change", map[string]string{"a.go": "package main\n\nfunc a() {}\n"}, "change")
	prN := sim.OpenPR(repoFN, "change", "main", "Change", "", "alice", false)
	pr := sim.PR(repoFN, prN)
	apps := ghtest.Apps(f, sim, appID, pem, ghtest.Retry(gh.RetryPolicy{Attempts: 1}))
	loop, err := events.New(events.Config{DB: db, Log: discard(), GitHub: apps, AppSlug: slug, WorkerID: "fuzz",
		MaxAttempts: 1, Backoff: []time.Duration{0}})
	if err != nil {
		f.Fatal(err)
	}
	inst := db.Installation.Create().SetGithubID(instID).SetAccountLogin("acme").SaveX(ctx)
	db.Reviewer.Create().SetName("security").SetInstallation(inst).SetConfig(new(reviewerconfig.Defaults())).SaveX(ctx)

	for _, ex := range webhooktest.Examples(f, webhooktest.Handled...) {
		f.Add(ex.Event, ex.Payload)
	}
	repo := fmt.Sprintf(`{"id":%d,"name":"widget","full_name":%q,"private":true,"default_branch":"main","owner":{"login":"acme","type":"Organization"}}`,
		sim.RepoID(repoFN), repoFN)
	prJSON := fmt.Sprintf(`{"number":%d,"title":"Change","state":"open","draft":false,"html_url":"x","head":{"ref":"change","sha":%q},"base":{"ref":"main","sha":%q}}`,
		prN, pr.HeadSHA, pr.BaseSHA)
	ours := func(event, rest string) {
		f.Add(event, []byte(fmt.Sprintf(`{"installation":{"id":%d,"account":{"login":"acme"}},"repository":%s,"sender":{"login":"alice","type":"User"},%s}`, instID, repo, rest)))
	}
	for _, body := range []string{"@chakshu review", "@chakshu review security\nplease", "@chakshu help", "@chakshu review all", "@chakshu review \x00\x1b[2J nope"} {
		b, _ := json.Marshal(body)
		ours("issue_comment", fmt.Sprintf(`"action":"created","issue":{"number":%d,"pull_request":{}},"comment":{"id":7,"body":%s,"user":{"login":"alice","type":"User"},"author_association":"MEMBER"}`, prN, b))
	}
	for _, action := range []string{"opened", "synchronize", "ready_for_review", "labeled", "review_requested", "closed"} {
		ours("pull_request", fmt.Sprintf(`"action":%q,"number":%d,"pull_request":%s,"label":{"name":"chakshu:review"},"requested_team":{"slug":"sec"}`, action, prN, prJSON))
	}
	ours("pull_request_review_comment", fmt.Sprintf(`"action":"created","pull_request":%s,"comment":{"id":9,"in_reply_to_id":8,"path":"a.go","body":"@chakshu why?","user":{"login":"alice"},"author_association":"MEMBER"}`, prJSON))
	ours("workflow_run", `"action":"completed","workflow_run":{"id":5,"conclusion":"failure","path":".github/workflows/chakshu.yml","display_title":"Chakshu run 1"}`)
	ours("check_run", `"action":"rerequested","check_run":{"id":3,"name":"Chakshu · security","app":{"slug":"chakshu"},"pull_requests":[{"number":1}]}`)
	ours("push", `"ref":"refs/heads/main","before":"0000000000000000000000000000000000000000","after":"1111111111111111111111111111111111111111","commits":[{"added":[".github/chakshu.yml"],"modified":[],"removed":[]}]`)
	f.Add("pull_request", []byte(fmt.Sprintf(`{"action":"opened","installation":{"id":%d},"repository":{"id":77,"name":"nul\u0000name","full_name":"acme/nul\u0000name","owner":{"login":"acme\u0000"}},"pull_request":%s}`, instID, prJSON)))
	f.Add("installation", []byte(`{"action":"created","installation":{"id":99,"account":{"login":"x\u0000y","type":"User"}},"repositories":[{"id":1,"name":"\u0000","full_name":"x/\u0000"}]}`))

	n := 0
	f.Fuzz(func(t *testing.T, event string, payload []byte) {
		var head struct {
			Action       string `json:"action"`
			Installation struct {
				ID int64 `json:"id"`
			} `json:"installation"`
		}
		json.Unmarshal(payload, &head) //nolint:errcheck // as the intake: what it cannot read stays empty
		n++
		id := fmt.Sprintf("fuzz-%d", n)
		ev, err := db.WebhookEvent.Create().SetDeliveryID(id).SetEvent(clean(event, 64)).SetAction(clean(head.Action, 100)).
			SetInstallationID(head.Installation.ID).SetPayload(payload).Save(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := loop.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		ev = db.WebhookEvent.GetX(ctx, ev.ID)
		if ev.Status != webhookevent.StatusDone && ev.Status != webhookevent.StatusFailed {
			t.Fatalf("%s event left %s: %s", event, ev.Status, ev.LastError)
		}
		if strings.Contains(ev.LastError, "handler panic") {
			t.Fatalf("%s event: %s", event, ev.LastError)
		}
		if strings.ContainsRune(ev.LastError, 0) || !utf8.ValidString(ev.LastError) {
			t.Fatalf("%s event: its error cannot be stored on PostgreSQL: %q", event, ev.LastError)
		}
	})
}

// clean is what the intake stores for a header field.
func clean(s string, n int) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "")
	if len(s) > n {
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "")
}
