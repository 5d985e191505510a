package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/gh"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/publish"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
	"github.com/chakshu-dev/chakshu/internal/wakeup"
	"github.com/chakshu-dev/chakshu/worker"
)

// orgScale is the size of BenchmarkOrgScale. The full size (DESIGN §11) is
// the default; CHAKSHU_BENCH_ORG_SCALE=small is a quick check.
type orgScale struct {
	installations int
	flood, quiet  int // reviews asked by the flooding installation, and by each quiet one
	ratePerInst   int // runs per installation in the dispatch-rate phase
	// compress: the simulator's and Chakshu's minute and hour are this
	// many times shorter than real ones.
	compress int
}

func scaleSize() (orgScale, string) {
	if os.Getenv("CHAKSHU_BENCH_ORG_SCALE") == "small" {
		return orgScale{installations: 20, flood: 100, quiet: 5, ratePerInst: 5, compress: 1000}, "small"
	}
	return orgScale{installations: 20, flood: 2000, quiet: 20, ratePerInst: 20, compress: 1000}, "full"
}

// BenchmarkOrgScale runs the worker's dispatch and publish loops (the
// production ones, with the write port's database budget) on PostgreSQL
// against the simulator's realistic mode (GitHub's primary quota, content
// limits of 80 a minute and 500 an hour per installation, 100 concurrent
// requests), time compressed: one installation floods reviews while the
// others ask for a few. A stand-in runner reports each dispatched run at
// once with one finding, as the runner API would.
func BenchmarkOrgScale(b *testing.B) {
	size, name := scaleSize()
	idle := runOrgScale(b, size, false)
	busy := runOrgScale(b, size, true)
	r1 := dispatchRate(b, size, 1)
	r3 := dispatchRate(b, size, 3)
	ratio := float64(busy.quietP95) / float64(max(idle.quietP95, time.Millisecond))
	b.ReportMetric(busy.callsPerReview, "calls/review")
	b.ReportMetric(float64(busy.refused.Secondary), "secondary-refusals")
	b.ReportMetric(ratio, "quiet-p95/idle")
	b.ReportMetric(r3/r1, "3-workers/1")
	fmt.Printf("org scale (%s: %d installations, one flooding %d reviews, %d quiet ones asking %d each; time compressed %d×):\n",
		name, size.installations, size.flood, size.installations-1, size.quiet, size.compress)
	fmt.Printf("  GitHub calls per review (check run, dispatch, review, completion; the runner's job reads not included): %.1f\n", busy.callsPerReview)
	fmt.Printf("  secondary-limit refusals met: %d (concurrency %d), primary %d; goal 0\n", busy.refused.Secondary, busy.refused.Concurrent, busy.refused.Primary)
	fmt.Printf("  reviews completed: %d of %d, posted twice: %d; goal all, none twice\n", busy.completed, busy.asked, busy.twice)
	fmt.Printf("  quiet installations' p95 queue wait: %s beside the flood, %s idle (%.2f×); goal ≤ 1.5×\n",
		busy.quietP95.Round(time.Millisecond), idle.quietP95.Round(time.Millisecond), ratio)
	fmt.Printf("  dispatch claims: %d for %d runs; handed back paced: %d (flood %d)\n", busy.claims, busy.asked, busy.paced, busy.floodPaced)
	fmt.Printf("  runs dispatched per second on PostgreSQL: %.1f with 1 worker process, %.1f with 3 (%.2f×); goal ≥ 2.5×\n", r1, r3, r3/r1)
}

type scaleResult struct {
	asked, completed, twice int
	callsPerReview          float64
	refused                 ghsim.Refusals
	quietP95                time.Duration
	// claims counts dispatch claims (attempts); paced, those handed back
	// for the installation's content budget (floodPaced: the flood's).
	claims, paced, floodPaced int
}

// scaleWorld is the simulator with its installations and the database
// rows, shared by every worker process of a phase.
type scaleWorld struct {
	sim   *ghsim.Sim
	appID int64
	key   []byte
	dbURL string
	db    *store.DB
	bus   *wakeup.Local
	repos []*ent.Repository
	// Per installation: its reviewers, and its PRs with their heads (a
	// run is one reviewer on one PR; perPR reviewers a PR).
	rvs    [][]*ent.Reviewer
	prs    [][]int
	heads  [][]string
	minute time.Duration
	hour   time.Duration
	inline time.Duration
	log    *slog.Logger
}

// perPR is how many reviewers are asked on one pull request.
const perPR = 20

// newScaleWorld sets up len(asks) installations, installation i with room
// for asks[i] runs.
func newScaleWorld(b *testing.B, size orgScale, latency time.Duration, asks []int) *scaleWorld {
	b.Helper()
	ctx := context.Background()
	w := &scaleWorld{minute: time.Minute / time.Duration(size.compress), hour: time.Hour / time.Duration(size.compress),
		inline: gh.InlineWait / time.Duration(size.compress),
		log:    slog.New(slog.NewTextHandler(io.Discard, nil)), bus: wakeup.NewLocal()}
	w.sim = ghsim.New(ghsim.Options{Limits: &ghsim.Limits{Primary: 5000, GraphQLPrimary: 5000, ContentPerMinute: 80, ContentPerHour: 500,
		MaxConcurrent: 100, Minute: w.minute, Hour: w.hour, Latency: latency}})
	b.Cleanup(w.sim.Close)
	w.appID, w.key = w.sim.CreateApp("chakshu")
	w.sim.CreateUser("alice")
	w.dbURL = storetest.NewPostgresDatabase(b)
	w.db = w.open(b)
	for i, n := range asks {
		org := fmt.Sprintf("org%02d", i)
		repo := org + "/app"
		w.sim.CreateOrg(org)
		w.sim.CreateRepo(org, "app", map[string]string{"main.go": "package main\n", ".github/workflows/chakshu.yml": action.WorkflowTemplate})
		w.sim.SetPermission(repo, "alice", "write")
		instID := w.sim.Install(w.appID, org, nil, nil)
		inst := w.db.Installation.Create().SetGithubID(instID).SetAccountLogin(org).SaveX(ctx)
		r := w.db.Repository.Create().SetGithubID(w.sim.RepoID(repo)).SetOwner(org).SetName("app").
			SetFullName(repo).SetDefaultBranch("main").SetInstallation(inst).SaveX(ctx)
		var rvs []*ent.Reviewer
		for k := range min(n, perPR) {
			rvs = append(rvs, w.db.Reviewer.Create().SetName(fmt.Sprintf("style%02d", k)).SetInstallation(inst).SaveX(ctx))
		}
		var prs []int
		var heads []string
		for k := 0; k < n; k += perPR {
			branch := fmt.Sprintf("feature%d", k/perPR)
			w.sim.CreateBranch(repo, branch, "main")
			heads = append(heads, w.sim.Commit(repo, branch, map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, "add main"))
			prs = append(prs, w.sim.OpenPR(repo, branch, "main", "Add main", "", "alice", false))
		}
		w.repos, w.rvs, w.prs, w.heads = append(w.repos, r), append(w.rvs, rvs), append(w.prs, prs), append(w.heads, heads)
	}
	return w
}

func (w *scaleWorld) open(b *testing.B) *store.DB {
	b.Helper()
	db, err := store.Open(context.Background(), store.Options{DatabaseURL: w.dbURL})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	runstate.NotifyLiveUpdates(db.Client, w.bus)
	return db
}

// enqueue queues n review runs of installation i.
func (w *scaleWorld) enqueue(b *testing.B, i, n int) {
	b.Helper()
	ctx := context.Background()
	for start := 0; start < n; start += 500 {
		var bulk []*ent.RunCreate
		for k := start; k < min(start+500, n); k++ {
			bulk = append(bulk, w.db.Run.Create().SetRepository(w.repos[i]).SetReviewer(w.rvs[i][k%perPR]).SetKind(run.KindReview).
				SetTrigger(run.TriggerComment).SetPrNumber(w.prs[i][k/perPR]).SetHeadSha(w.heads[i][k/perPR]).SetBaseRef("main").
				SetHeadRef(fmt.Sprintf("feature%d", k/perPR)).SetRequester("alice"))
		}
		w.db.Run.CreateBulk(bulk...).ExecX(ctx)
	}
	w.bus.Notify(ctx, wakeup.TopicRuns) //nolint:errcheck
}

// process starts one worker process's dispatch loop (and publish loop when
// publishing) on its own database pool, GitHub clients and write port.
func (w *scaleWorld) process(b *testing.B, ctx context.Context, n int, publishing bool) {
	b.Helper()
	db := w.open(b)
	apps, err := gh.New(gh.Config{AppID: w.appID, PrivateKey: w.key, BaseURL: w.sim.URL(), GraphQLURL: w.sim.GraphQLURL()})
	if err != nil {
		b.Fatal(err)
	}
	// The longest in-place wait is compressed like the windows.
	port := ghwrite.New(apps, "chakshu", ghwrite.WithClock(time.Now, w.inline), ghwrite.WithBudget(ghwrite.NewDBBudget(db, []ghwrite.Window{
		{N: 80, Per: w.minute}, {N: 500, Per: w.hour}})))
	id := fmt.Sprintf("bench-%d", n)
	d, err := worker.NewDispatcher(worker.DispatchConfig{DB: db, Log: w.log, Bus: w.bus, GitHub: apps, Write: port,
		WorkerID: id, PublicURL: "http://127.0.0.1:8080", AppSlug: "chakshu", PollInterval: 20 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	go d.Run(ctx) //nolint:errcheck
	if !publishing {
		return
	}
	p, err := publish.New(publish.Config{DB: db, GitHub: apps, Write: port, AppSlug: "chakshu", PublicURL: "http://127.0.0.1:8080", Log: w.log})
	if err != nil {
		b.Fatal(err)
	}
	pl, err := worker.NewPublishLoop(worker.PublisherConfig{DB: db, Bus: w.bus, Publisher: p, Log: w.log, Check: port,
		WorkerID: id, Poll: 50 * time.Millisecond, StaleAfter: 90 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	go pl.Run(ctx) //nolint:errcheck
}

// runner reports every dispatched run with one finding, as the runner API
// would after the review, and notes when it was dispatched.
func (w *scaleWorld) runner(ctx context.Context, report bool) (dispatched func() map[int]time.Time) {
	var mu sync.Mutex
	at := map[int]time.Time{}
	ids := make(chan int, 10000)
	w.sim.OnDispatch(func(r ghsim.WorkflowRun) {
		all := fmt.Sprint(r.Inputs["run_id"])
		if shared, ok := r.Inputs["run_ids"]; ok { // reviewers sharing the Actions run
			all = fmt.Sprint(shared)
		}
		for _, s := range strings.Split(all, ",") {
			id, _ := strconv.Atoi(s)
			mu.Lock()
			if _, ok := at[id]; !ok {
				at[id] = time.Now()
			}
			mu.Unlock()
			if report {
				ids <- id
			}
		}
	})
	res := &findings.Stored{Review: &findings.Result{Summary: "One thing.", Findings: []findings.Finding{
		{Path: "main.go", Line: 3, Side: "RIGHT", Severity: findings.Major, Category: "bug", Title: "Empty main", Body: "It does nothing."}}}}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case id := <-ids:
				// The dispatcher records the run as dispatched just after
				// GitHub started the workflow.
				bg := context.Background()
				var err error
				for range 500 {
					if err = runstate.Transition(bg, w.db.Client, id, runstate.Change{From: []run.Status{run.StatusDispatched}, To: run.StatusRunning}); err == nil {
						break
					}
					time.Sleep(10 * time.Millisecond)
				}
				if err != nil {
					continue
				}
				runstate.Transition(bg, w.db.Client, id, runstate.Change{From: []run.Status{run.StatusRunning}, To: run.StatusPublishing, //nolint:errcheck
					Set: func(u *ent.RunUpdate) { u.SetResult(res) }})
				w.bus.Notify(bg, wakeup.TopicPublish) //nolint:errcheck
			}
		}
	}()
	return func() map[int]time.Time {
		mu.Lock()
		defer mu.Unlock()
		out := make(map[int]time.Time, len(at))
		for k, v := range at {
			out[k] = v
		}
		return out
	}
}

func (w *scaleWorld) waitDone(b *testing.B, ctx context.Context, want int, statuses ...run.Status) int {
	b.Helper()
	deadline := time.Now().Add(30 * time.Minute)
	for {
		n := w.db.Run.Query().Where(run.StatusIn(statuses...)).CountX(ctx)
		if n >= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runOrgScale: the quiet installations' reviews, beside the flood or idle.
func runOrgScale(b *testing.B, size orgScale, flood bool) scaleResult {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	asks := slices.Repeat([]int{size.quiet}, size.installations)
	asks[0] = 0
	if flood {
		asks[0] = size.flood
	}
	w := newScaleWorld(b, size, 2*time.Millisecond, asks)
	dispatched := w.runner(ctx, true)
	asked := 0
	for i, n := range asks {
		w.enqueue(b, i, n)
		asked += n
	}
	callsBefore := total(w.sim.Calls())
	w.process(b, ctx, 0, true)
	done := w.waitDone(b, ctx, asked, run.StatusSucceeded, run.StatusFailed, run.StatusCancelled)
	cancel()
	res := scaleResult{asked: asked, refused: w.sim.Refused()}
	res.completed = w.db.Run.Query().Where(run.StatusEQ(run.StatusSucceeded)).CountX(context.Background())
	if done < asked {
		b.Logf("only %d of %d runs ended", done, asked)
	}
	reviews := 0
	for i, r := range w.repos {
		for _, pr := range w.prs[i] {
			reviews += len(w.sim.Reviews(r.FullName, pr))
		}
	}
	res.twice = reviews - res.completed
	res.callsPerReview = float64(total(w.sim.Calls())-callsBefore) / float64(max(1, res.completed))
	at := dispatched()
	var waits []time.Duration
	for _, r := range w.db.Run.Query().WithRepository().AllX(context.Background()) {
		if r.Edges.Repository.ID == w.repos[0].ID {
			continue
		}
		if t, ok := at[r.ID]; ok {
			waits = append(waits, t.Sub(r.CreatedAt))
		}
	}
	res.quietP95 = p95(waits)
	for _, r := range w.db.Run.Query().WithRepository().WithEvents().AllX(context.Background()) {
		res.claims += r.Attempts
		for _, e := range r.Edges.Events {
			if strings.HasPrefix(e.Message, "Chakshu paces") {
				res.paced++
				if r.Edges.Repository.ID == w.repos[0].ID {
					res.floodPaced++
				}
			}
		}
	}
	return res
}

// dispatchRate is runs dispatched per second by n worker processes.
func dispatchRate(b *testing.B, size orgScale, n int) float64 {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// GitHub answers in about 20 ms here (it takes longer in real life):
	// the processes wait on it, not on each other.
	w := newScaleWorld(b, size, 20*time.Millisecond, slices.Repeat([]int{size.ratePerInst}, size.installations))
	w.runner(ctx, false)
	for i := range size.installations {
		w.enqueue(b, i, size.ratePerInst)
	}
	want := size.installations * size.ratePerInst
	start := time.Now()
	for p := range n {
		w.process(b, ctx, p, false)
	}
	got := w.waitDone(b, ctx, want, run.StatusDispatched)
	elapsed := time.Since(start)
	if got < want {
		b.Logf("%d processes: only %d of %d runs dispatched", n, got, want)
	}
	return float64(got) / elapsed.Seconds()
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func p95(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[(len(ds)*95-1)/100]
}
