package ghwrite_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v88/github"

	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/gh/ghtest"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
)

const repoName = "acme/widget"

type world struct {
	sim  *ghsim.Sim
	port *ghwrite.Port
	repo ghwrite.Repo
	pr   int
	head string
	apps *gh.Apps
	// waits records the port's pauses between attempts.
	waits []time.Duration
}

func newWorld(t *testing.T) *world { t.Helper(); return newWorldWith(t, ghsim.Options{}) }

func newWorldWith(t *testing.T, opts ghsim.Options) *world {
	t.Helper()
	s := ghsimtest.New(t, opts)
	appID, pem := s.CreateApp("chakshu")
	s.CreateOrg("acme")
	s.CreateUser("alice")
	s.CreateRepo("acme", "widget", map[string]string{"main.go": "package main\n"})
	inst := s.Install(appID, "acme", []string{repoName}, nil)
	s.CreateBranch(repoName, "feature", "main")
	s.Commit(repoName, "feature", map[string]string{"main.go": "package main\n\nfunc f() {}\n"}, "f")
	w := &world{sim: s, repo: ghwrite.Repo{Installation: inst, Owner: "acme", Name: "widget"}}
	w.pr = s.OpenPR(repoName, "feature", "main", "F", "", "alice", false)
	w.head = s.PR(repoName, w.pr).HeadSHA
	apps := ghtest.Apps(t, s, appID, pem, ghtest.Retry(gh.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}))
	w.apps = apps
	w.port = ghwrite.New(apps, "chakshu", ghwrite.WithSleep(func(_ context.Context, d time.Duration) error {
		w.waits = append(w.waits, d)
		return nil
	}))
	return w
}

const marker = "<!-- chakshu:run:7 -->"

func mine(body string) bool { return strings.HasSuffix(strings.TrimSpace(body), marker) }

// Each content-creating POST, answered 502 after GitHub performed it, is
// posted once: the port finds it before sending again; the transport did not
// resend it blindly (one POST on the wire).
func TestCreatedThen502PostsOnce(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, match string
		write       func(w *world) error
		count       func(w *world) int
	}{
		{"review", "POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews", func(w *world) error {
			_, err := w.port.CreateReview(ctx, w.repo, w.pr, &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"),
				Body: github.Ptr("Looks fine.\n\n" + marker), CommitID: github.Ptr(w.head)}, mine)
			return err
		}, func(w *world) int { return len(w.sim.Reviews(repoName, w.pr)) }},
		{"issue comment", "POST /repos/{owner}/{repo}/issues/{issue_number}/comments", func(w *world) error {
			_, err := w.port.Comment(ctx, w.repo, w.pr, "Hello.\n\n"+marker, mine, false)
			return err
		}, func(w *world) int { return len(w.sim.IssueComments(repoName, w.pr)) }},
		{"check run", "POST /repos/{owner}/{repo}/check-runs", func(w *world) error {
			_, _, err := w.port.OpenCheck(ctx, ghwrite.Check{Repo: w.repo, Name: ghwrite.CheckName("security", false), HeadSHA: w.head, RunID: 7},
				"http://chakshu.test/runs/7", ghwrite.Text{Title: "Queued", Summary: "Chakshu queued this review."})
			return err
		}, func(w *world) int { return len(w.sim.CheckRuns(repoName)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: tc.match, Kind: ghsimtest.FaultAfterWrite, Times: 1})
			if err := tc.write(w); err != nil {
				t.Fatalf("write: %v", err)
			}
			if n := tc.count(w); n != 1 {
				t.Fatalf("%d posted, want 1", n)
			}
			if n := w.sim.CallCount(tc.match); n != 1 {
				t.Fatalf("%d POSTs, want 1 (found after the 502, not resent)", n)
			}
			if ghsimtest.FaultHits(w.sim, 0) != 1 {
				t.Fatal("the fault did not fire")
			}
		})
	}
}

// A reply that landed and answered 502 is posted once too.
func TestReplyCreatedThen502PostsOnce(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	rv, err := w.port.CreateReview(ctx, w.repo, w.pr, &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr("r"),
		CommitID: github.Ptr(w.head), Comments: []*github.DraftReviewComment{{Path: github.Ptr("main.go"), Line: github.Ptr(3), Side: github.Ptr("RIGHT"), Body: github.Ptr("here")}}},
		func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	var rootID int64
	for _, c := range w.sim.ReviewComments(repoName, w.pr) {
		if c.ReviewID == rv.GetID() {
			rootID = c.ID
		}
	}
	const match = "POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies"
	ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: match, Kind: ghsimtest.FaultAfterWrite, Times: 1})
	if _, err := w.port.Reply(ctx, w.repo, w.pr, rootID, "Answer.\n\n"+marker, mine, false); err != nil {
		t.Fatal(err)
	}
	var n int
	for _, c := range w.sim.ReviewComments(repoName, w.pr) {
		if mine(c.Body) {
			n++
		}
	}
	if n != 1 || w.sim.CallCount(match) != 1 {
		t.Fatalf("%d answers after %d POSTs, want 1 after 1", n, w.sim.CallCount(match))
	}
}

// A 502 before anything landed (the simulator's ordinary fault) is sent
// again after the look finds nothing: one post, two POSTs, one pause.
func TestFailedBeforeWriteIsSentAgain(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	const match = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
	ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: match, Kind: ghsimtest.FaultServerError, Times: 1})
	if _, err := w.port.Comment(ctx, w.repo, w.pr, "Hello.\n\n"+marker, mine, false); err != nil {
		t.Fatal(err)
	}
	if n := len(w.sim.IssueComments(repoName, w.pr)); n != 1 || w.sim.CallCount(match) != 2 || len(w.waits) != 1 {
		t.Fatalf("%d comments, %d POSTs, waits %v; want 1, 2, one wait", n, w.sim.CallCount(match), w.waits)
	}
}

// Three failures that never land: three POSTs in all (the limit), then the
// error; a fourth is never sent.
func TestGivesUpAfterThreeAttempts(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	const match = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
	ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: match, Kind: ghsimtest.FaultServerError, Times: 3})
	if _, err := w.port.Comment(ctx, w.repo, w.pr, "Hello.\n\n"+marker, mine, false); err == nil || ghwrite.StatusOf(err) != 502 {
		t.Fatalf("err %v, want the 502", err)
	}
	if n := w.sim.CallCount(match); n != 3 {
		t.Fatalf("%d POSTs, want 3", n)
	}
	if n := len(w.sim.IssueComments(repoName, w.pr)); n != 0 {
		t.Fatalf("%d comments", n)
	}
	// Two failures, then it lands on the third.
	w2 := newWorld(t)
	ghsimtest.InjectFault(w2.sim, ghsimtest.Fault{Match: match, Kind: ghsimtest.FaultServerError, Times: 2})
	if _, err := w2.port.Comment(ctx, w2.repo, w2.pr, "Hello.\n\n"+marker, mine, false); err != nil {
		t.Fatal(err)
	}
	if n := len(w2.sim.IssueComments(repoName, w2.pr)); n != 1 || w2.sim.CallCount(match) != 3 {
		t.Fatalf("%d comments after %d POSTs", n, w2.sim.CallCount(match))
	}
}

// A refusal (422) is not retried and not looked for.
func TestRefusalIsNotRetried(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	const match = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"
	ghsimtest.InjectFault(w.sim, ghsimtest.Fault{Match: match, Kind: ghsimtest.FaultServerError, Status: 422, Times: 1})
	if _, err := w.port.Comment(ctx, w.repo, w.pr, "x", mine, false); ghwrite.StatusOf(err) != 422 {
		t.Fatalf("err %v", err)
	}
	if w.sim.CallCount(match) != 1 || w.sim.CallCount("GET /repos/{owner}/{repo}/issues/{issue_number}/comments") != 0 {
		t.Fatal("a refusal was retried or looked for")
	}
}

// A run whose check is no longer the newest of its name on the commit (a
// later run made another) finds its own check again instead of opening a
// second one and leaving the first "in progress" for ever.
func TestOpenCheckFindsItsOwnOlderCheck(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	open := func(run int) (int64, bool) {
		t.Helper()
		id, created, err := w.port.OpenCheck(ctx, ghwrite.Check{Repo: w.repo, Name: ghwrite.CheckName("security", false), HeadSHA: w.head, RunID: run},
			"http://chakshu.test/runs/"+strconv.Itoa(run), ghwrite.Text{Title: "Queued", Summary: "Chakshu queued this review."})
		if err != nil {
			t.Fatal(err)
		}
		return id, created
	}
	first, _ := open(7)
	open(8)
	again, created := open(7)
	if again != first || created {
		t.Fatalf("run 7 opened check %d (created %v), want its own %d found", again, created, first)
	}
	if n := len(w.sim.CheckRuns(repoName)); n != 2 {
		t.Fatalf("%d check runs, want 2", n)
	}
}
