package worker_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/queue"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghsim/ghsimtest"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/worker"
)

const repoName = "acme/widget"

// fixture is a simulated GitHub with one installed repository and an open PR,
// and the matching rows in Chakshu's database.
type fixture struct {
	sim      *ghsim.Sim
	db       *store.DB
	apps     *gh.Apps
	bus      *wakeup.Local
	instID   int64
	repo     *ent.Repository
	reviewer *ent.Reviewer
	pr       int
	head     string
	log      *slog.Logger
}

func newFixture(t *testing.T, db *store.DB, files map[string]string) *fixture {
	t.Helper()
	return newFixtureWith(t, db, files, ghsim.Options{})
}

// newFixtureWith is newFixture on a simulator with opts (Enterprise Server).
func newFixtureWith(t *testing.T, db *store.DB, files map[string]string, opts ghsim.Options) *fixture {
	t.Helper()
	ctx := context.Background()
	s := ghsimtest.New(t, opts)
	appID, key := s.CreateApp("chakshu")
	s.CreateOrg("acme")
	s.CreateUser("alice")
	if files == nil {
		files = map[string]string{"main.go": "package main\n", ".github/workflows/chakshu.yml": action.WorkflowTemplate}
	}
	s.CreateRepo("acme", "widget", files)
	s.SetPermission(repoName, "alice", "write")
	instID := s.Install(appID, "acme", nil, nil)
	s.CreateBranch(repoName, "feature", "main")
	head := s.Commit(repoName, "feature", map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, "add main")
	pr := s.OpenPR(repoName, "feature", "main", "Add main", "", "alice", false)
	apps, err := gh.New(gh.Config{AppID: appID, PrivateKey: key, BaseURL: s.URL(), GraphQLURL: s.GraphQLURL(),
		Retry: gh.RetryPolicy{BaseDelay: 5 * time.Millisecond, MaxDelay: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	inst := db.Installation.Create().SetGithubID(instID).SetAccountLogin("acme").SaveX(ctx)
	repo := db.Repository.Create().SetGithubID(s.RepoID(repoName)).SetOwner("acme").SetName("widget").
		SetFullName(repoName).SetDefaultBranch("main").SetInstallation(inst).SaveX(ctx)
	rv := db.Reviewer.Create().SetName("security").SetInstallation(inst).SaveX(ctx)
	bus := wakeup.NewLocal()
	runstate.NotifyLiveUpdates(db.Client, bus) // as the app wires it
	return &fixture{sim: s, db: db, apps: apps, bus: bus, instID: instID, repo: repo, reviewer: rv,
		pr: pr, head: head, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func (f *fixture) enqueue(t *testing.T) *ent.Run {
	t.Helper()
	created, _, err := runstate.Enqueue(context.Background(), f.db, f.bus, runstate.Request{
		RepositoryID: f.repo.ID, ReviewerIDs: []int{f.reviewer.ID}, PRNumber: f.pr, HeadSHA: f.head,
		Trigger: run.TriggerComment, Requester: "alice"})
	if err != nil || len(created) != 1 {
		t.Fatalf("enqueue: %v (%d created)", err, len(created))
	}
	return created[0]
}

func (f *fixture) dispatcher(t *testing.T, id string) *worker.Dispatcher {
	t.Helper()
	d, err := worker.NewDispatcher(worker.DispatchConfig{DB: f.db, Log: f.log, Bus: f.bus, GitHub: f.apps,
		WorkerID: id, PublicURL: "http://127.0.0.1:8080", AppSlug: "chakshu", PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *fixture) finisher(t *testing.T) *worker.Finisher {
	t.Helper()
	fin, err := worker.NewFinisher(worker.FinishConfig{DB: f.db, Log: f.log, Bus: f.bus, GitHub: f.apps})
	if err != nil {
		t.Fatal(err)
	}
	return fin
}

// claimAndDispatch claims the next queued run as owner and dispatches it.
func (f *fixture) claimAndDispatch(t *testing.T, d *worker.Dispatcher, owner string) int {
	t.Helper()
	id, err := queue.Claim(context.Background(), f.db, queue.QueuedRuns, owner, time.Now(), 0)
	if err != nil || id == 0 {
		t.Fatalf("claim: id %d err %v", id, err)
	}
	d.Dispatch(context.Background(), id)
	return id
}

func (f *fixture) checkRun(t *testing.T, id int64) ghsim.CheckRun {
	t.Helper()
	for _, c := range f.sim.CheckRuns(repoName) {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("check run %d not found", id)
	return ghsim.CheckRun{}
}

func TestDispatchHappyPath(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		dispatched := make(chan ghsim.WorkflowRun, 1)
		f.sim.OnDispatch(func(r ghsim.WorkflowRun) { dispatched <- r })
		r := f.enqueue(t)
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")

		got := db.Run.GetX(ctx, r.ID)
		if got.Status != run.StatusDispatched || got.ActionsRunID == 0 || got.ActionsRunURL == "" || got.LeaseOwner != "" {
			t.Fatalf("run after dispatch: status %s actions %d url %q lease %q", got.Status, got.ActionsRunID, got.ActionsRunURL, got.LeaseOwner)
		}
		var wr ghsim.WorkflowRun
		select {
		case wr = <-dispatched:
		case <-time.After(5 * time.Second):
			t.Fatal("the simulator saw no workflow dispatch")
		}
		if wr.ID != got.ActionsRunID || wr.Workflow != "chakshu.yml" || wr.Ref != "main" {
			t.Fatalf("workflow run %+v does not match run %d", wr, got.ActionsRunID)
		}
		want := map[string]string{"run_id": strconv.Itoa(r.ID), "pr_number": strconv.Itoa(f.pr), "head_sha": f.head}
		for k, v := range want {
			if fmt.Sprint(wr.Inputs[k]) != v {
				t.Errorf("input %s = %v, want %s", k, wr.Inputs[k], v)
			}
		}
		c := f.checkRun(t, got.CheckRunID)
		portal := fmt.Sprintf("http://127.0.0.1:8080/runs/%d", r.ID)
		if c.Name != "Chakshu · security" || c.Status != "in_progress" || c.HeadSHA != f.head || c.DetailsURL != portal ||
			!strings.Contains(c.Summary, portal) {
			t.Fatalf("check run: %+v", c)
		}
		if n := db.RunEvent.Query().CountX(ctx); n != 2 {
			t.Fatalf("timeline entries %d, want 2 (queued, dispatched)", n)
		}
	})
}

func TestDispatchCancelsWhenPRMoved(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		r := f.enqueue(t)
		db.Run.UpdateOne(r).SetAttempts(1).ExecX(ctx) // an earlier attempt was put back: the run waited
		newHead := f.sim.Commit(repoName, "feature", map[string]string{"b.go": "package main\n"}, "more")
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		got := db.Run.GetX(ctx, r.ID)
		if got.Status != run.StatusCancelled || !strings.Contains(got.FailureReason, newHead[:7]) || !strings.Contains(got.FailureReason, "@chakshu review") {
			t.Fatalf("run: status %s reason %q", got.Status, got.FailureReason)
		}
		if got.ActionsRunID != 0 || len(f.sim.Runs()) != 0 {
			t.Fatal("a workflow was started for a stale head")
		}
		if err := f.finisher(t).FinishAll(ctx); err != nil {
			t.Fatal(err)
		}
		c := f.checkRun(t, got.CheckRunID)
		if c.Status != "completed" || c.Conclusion != "cancelled" || !strings.Contains(c.Summary, "moved") {
			t.Fatalf("check run: %+v", c)
		}
		if !db.Run.GetX(ctx, r.ID).CheckCompleted {
			t.Fatal("check_completed not recorded")
		}
		if n := f.sim.CallCount(cancelActionsRun); n != 0 {
			t.Fatalf("%d Actions cancels for a run never dispatched", n)
		}
	})
}

func TestDispatchFailuresNameTheFix(t *testing.T) {
	cases := []struct {
		name  string
		setup func(f *fixture)
		want  string
	}{
		{"no workflow file", func(f *fixture) {}, ".github/workflows/chakshu.yml"},
		{"no actions permission", func(f *fixture) {
			p := ghsim.DefaultPermissions()
			delete(p, "actions")
			f.sim.SetInstallationPermissions(f.instID, p)
		}, "Actions: Read and write"},
		// GitHub answers 422 for both: a workflow without the trigger, and
		// one declaring fewer inputs than the dispatcher sends (an old copy).
		{"no workflow_dispatch trigger", func(f *fixture) {
			f.sim.Commit("acme/widget", "main", map[string]string{".github/workflows/chakshu.yml": "name: Chakshu\non: push\njobs: {}\n"}, "push only")
		}, "must have a `workflow_dispatch` trigger"},
		{"undeclared input", func(f *fixture) {
			f.sim.Commit("acme/widget", "main", map[string]string{".github/workflows/chakshu.yml": "name: Chakshu\non:\n  workflow_dispatch:\n    inputs:\n      run_id: {required: true}\n      pr_number: {required: true}\njobs: {}\n"}, "old copy")
		}, "inputs run_id, pr_number and head_sha"},
		{"5xx three times", func(f *fixture) {
			ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", Kind: ghsimtest.FaultServerError, Times: 3})
		}, "after 3 attempts"},
		// A model retired after the reviewer synced: no workflow starts, the check names the fix.
		{"retired model", func(f *fixture) {
			f.db.Reviewer.UpdateOne(f.reviewer).SetConfig(&reviewerconfig.Config{Model: "claude-sonnet-4-5"}).ExecX(context.Background())
		}, "Set `model:` in reviewers/security/reviewer.yaml"},
		{"unknown model", func(f *fixture) {
			f.db.Reviewer.UpdateOne(f.reviewer).SetConfig(&reviewerconfig.Config{Model: "claude-sonnet-9"}).ExecX(context.Background())
		}, "CHAKSHU_MODEL_CATALOG"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				files := map[string]string{"main.go": "package main\n"}
				if tc.name != "no workflow file" {
					files[".github/workflows/chakshu.yml"] = action.WorkflowTemplate
				}
				f := newFixture(t, db, files)
				tc.setup(f)
				r := f.enqueue(t)
				f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
				got := db.Run.GetX(ctx, r.ID)
				if got.Status != run.StatusFailed || !strings.Contains(got.FailureReason, tc.want) {
					t.Fatalf("run: status %s reason %q, want it to mention %q", got.Status, got.FailureReason, tc.want)
				}
				if err := f.finisher(t).FinishAll(ctx); err != nil {
					t.Fatal(err)
				}
				c := f.checkRun(t, got.CheckRunID)
				if c.Conclusion != "failure" || c.Summary != got.FailureReason {
					t.Fatalf("check run: conclusion %q summary %q", c.Conclusion, c.Summary)
				}
			})
		})
	}
}

func TestDispatchRetriesTransientErrors(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches", Kind: ghsimtest.FaultServerError, Times: 1})
		ghsimtest.InjectFault(f.sim, ghsimtest.Fault{Match: "GET /repos/{owner}/{repo}/pulls/{pull_number}", Kind: ghsimtest.FaultRateLimit, RetryAfter: 0, Times: 2})
		r := f.enqueue(t)
		f.db.Run.UpdateOne(r).SetAttempts(1).ExecX(context.Background()) // a run that waited reads its PR again
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		if got := f.db.Run.GetX(context.Background(), r.ID); got.Status != run.StatusDispatched {
			t.Fatalf("run status %s (%s), want dispatched after retries", got.Status, got.FailureDetail)
		}
		if len(f.sim.Runs()) != 1 {
			t.Fatalf("%d workflow runs, want exactly 1", len(f.sim.Runs()))
		}
	})
}

// A worker that dies holding a queued run: the sweeper takes the lease back and
// another worker dispatches it.
func TestDeadWorkerRunIsRedispatched(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		r := f.enqueue(t)
		old := time.Now().Add(-2 * time.Minute)
		if id, err := queue.Claim(ctx, db, queue.QueuedRuns, "dead-worker", old, 0); err != nil || id != r.ID {
			t.Fatalf("claim by the doomed worker: %d %v", id, err)
		}
		if id, _ := queue.Claim(ctx, db, queue.QueuedRuns, "w2", time.Now(), 0); id != 0 {
			t.Fatal("a held run was claimed twice")
		}
		sw, err := worker.NewSweeper(worker.SweepConfig{DB: db, Log: f.log, Bus: f.bus, DeadAfter: 90 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sw.SweepCount(ctx, time.Now())
		if err != nil || res.RunsRequeued != 1 {
			t.Fatalf("sweep: %+v %v", res, err)
		}
		f.claimAndDispatch(t, f.dispatcher(t, "w2"), "w2")
		if got := db.Run.GetX(ctx, r.ID); got.Status != run.StatusDispatched {
			t.Fatalf("status %s", got.Status)
		}
	})
}

func TestReportTimeoutFailsRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		r := f.enqueue(t)
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		sw, _ := worker.NewSweeper(worker.SweepConfig{DB: db, Log: f.log, Bus: f.bus, ReportTimeout: time.Minute})
		updated, stop := f.bus.Subscribe(wakeup.TopicRunUpdated)
		defer stop()
		res, err := sw.SweepCount(ctx, time.Now())
		if err != nil || res.RunsTimedOut != 0 {
			t.Fatalf("fresh run timed out: %+v %v", res, err)
		}
		select {
		case <-updated:
			t.Fatal("a sweep that changed nothing woke the live updates")
		default:
		}
		res, err = sw.SweepCount(ctx, time.Now().Add(61*time.Second))
		if err != nil || res.RunsTimedOut != 1 {
			t.Fatalf("stale run not failed: %+v %v", res, err)
		}
		select {
		case <-updated: // the portal hears of the failure
		default:
			t.Fatal("the sweeper's Fail did not publish run_updated")
		}
		got := db.Run.GetX(ctx, r.ID)
		if got.Status != run.StatusFailed || !strings.Contains(got.FailureReason, "did not report back") {
			t.Fatalf("run: %s %q", got.Status, got.FailureReason)
		}
	})
}

// Four workers racing over 200 runs of one PR and commit on PostgreSQL, each
// claiming runs to share its Actions run with: each run dispatched exactly
// once, in exactly one Actions run.
func TestConcurrentDispatchExactlyOnce(t *testing.T) {
	db := storetest.Open(t, "postgres")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t, db, nil)
	const n = 200
	var ids []int
	for i := 0; i < n; i++ {
		rv := db.Reviewer.Create().SetName(fmt.Sprintf("r%d", i)).SetInstallationID(f.repo.QueryInstallation().OnlyIDX(ctx)).SaveX(ctx)
		created, _, err := runstate.Enqueue(ctx, db, nil, runstate.Request{RepositoryID: f.repo.ID, ReviewerIDs: []int{rv.ID},
			PRNumber: f.pr, HeadSHA: f.head, Trigger: run.TriggerAuto})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, created[0].ID)
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		d := f.dispatcher(t, fmt.Sprintf("w%d", w))
		wg.Add(1)
		go func() { defer wg.Done(); d.Run(ctx) }() //nolint:errcheck
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		left := db.Run.Query().Where(run.StatusEQ(run.StatusQueued)).CountX(ctx)
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d runs still queued", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	seen := map[string]int{}
	for _, wr := range f.sim.Runs() {
		for _, id := range runIDsOf(wr) {
			seen[id]++
		}
	}
	for _, id := range ids {
		if c := seen[strconv.Itoa(id)]; c != 1 {
			t.Errorf("run %d dispatched %d times", id, c)
		}
	}
	if got := db.Run.Query().Where(run.StatusEQ(run.StatusDispatched)).CountX(context.Background()); got != n {
		t.Fatalf("%d runs dispatched, want %d", got, n)
	}
}

// dispatchCalls are the GitHub calls dispatching can make.
var dispatchCalls = []string{
	"GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
	"POST /repos/{owner}/{repo}/check-runs",
	"GET /repos/{owner}/{repo}/pulls/{pull_number}",
	"PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
	"POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
}

func (f *fixture) dispatchCallCounts() map[string]int {
	got := map[string]int{}
	for _, c := range dispatchCalls {
		if n := f.sim.CallCount(c); n > 0 {
			got[c] = n
		}
	}
	return got
}

// A run's first dispatch, moments after it was queued, makes two GitHub
// calls: it creates its check run in progress (no look for one left behind,
// no separate start) and starts the workflow. It does not read the PR again
// nor point the check at the Actions run (docs/architecture.md).
func TestDispatchCallsGitHubTwiceOnFirstAttempt(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		f.enqueue(t)
		f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
		f.wantCalls(t, map[string]int{dispatchCalls[1]: 1, dispatchCalls[4]: 1})
	})
}

func (f *fixture) wantCalls(t *testing.T, want map[string]int) {
	t.Helper()
	if got := f.dispatchCallCounts(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("GitHub calls %v, want %v", got, want)
	}
}

// A run whose first attempt created its check run and died before recording
// its id: the second attempt looks for the check run, finds that one and
// starts it (no second check run), and reads its PR (it waited).
func TestRedispatchFindsTheCheckItsFirstAttemptCreated(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, nil)
		r := f.enqueue(t)
		rl := db.Run.Query().Where(run.ID(r.ID)).WithRepository(func(q *ent.RepositoryQuery) { q.WithInstallation() }).WithReviewer().OnlyX(ctx)
		if _, _, err := ghwrite.New(f.apps, "chakshu").OpenCheck(ctx, ghwrite.CheckOf(rl), "http://x/runs/1", ghwrite.Text{Title: "t", Summary: "s"}); err != nil {
			t.Fatal(err)
		}
		db.Run.UpdateOne(r).SetAttempts(1).ExecX(ctx)
		f.claimAndDispatch(t, f.dispatcher(t, "w2"), "w2")
		// OpenCheck above looked once and created once; the dispatch looked,
		// read the PR, started the check it found and the workflow.
		f.wantCalls(t, map[string]int{dispatchCalls[0]: 2, dispatchCalls[1]: 1, dispatchCalls[2]: 1, dispatchCalls[3]: 1, dispatchCalls[4]: 1})
		got := db.Run.GetX(ctx, r.ID)
		if got.Status != run.StatusDispatched || len(f.sim.CheckRuns(repoName)) != 1 || f.checkRun(t, got.CheckRunID).Status != "in_progress" {
			t.Fatalf("run %s, %d check runs", got.Status, len(f.sim.CheckRuns(repoName)))
		}
	})
}

// A run queued more than 30 s ago reads its PR before its workflow starts,
// even on its first attempt; one queued 20 s ago does not (10 s to spare for a slow machine).
func TestDispatchRereadsPRAfterThirtySeconds(t *testing.T) {
	for _, tc := range []struct {
		age   time.Duration
		reads int
	}{{20 * time.Second, 0}, {40 * time.Second, 1}} {
		t.Run(tc.age.String(), func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				f := newFixture(t, db, nil)
				db.Run.Create().SetRepository(f.repo).SetReviewer(f.reviewer).SetPrNumber(f.pr).SetHeadSha(f.head).
					SetTrigger(run.TriggerComment).SetCreatedAt(time.Now().Add(-tc.age)).SaveX(context.Background())
				f.claimAndDispatch(t, f.dispatcher(t, "w1"), "w1")
				if n := f.sim.CallCount(dispatchCalls[2]); n != tc.reads {
					t.Errorf("queued %s ago: %d PR reads, want %d", tc.age, n, tc.reads)
				}
				if len(f.sim.Runs()) != 1 {
					t.Errorf("%d workflow runs, want 1", len(f.sim.Runs()))
				}
			})
		})
	}
}
