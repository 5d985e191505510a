package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/action"
	"github.com/chakshu-dev/chakshu/internal/e2e/cluster"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
)

// orgScale is the size of BenchmarkOrgScale: make bench runs the small one,
// CHAKSHU_BENCH_ORG_SCALE=full the full one.
type orgScale struct {
	name string
	// quiet installations, each opening quietPRs pull requests: as many
	// for the quiet-only control as beside the flood.
	quiet, quietPRs int
	// floodPRs is the pull requests the flooding installation opens.
	floodPRs int
	// rateInsts installations opening ratePRs pull requests each, once for
	// one worker process and once for three. Each installation dispatches
	// within the burst of its content budget (Chakshu's pacing lets an
	// eighth of GitHub's 80 a minute go at once, internal/ghwrite), so the
	// rate is the workers', not GitHub's limit on one installation.
	rateInsts, ratePRs int
}

func scaleSize() orgScale {
	if os.Getenv("CHAKSHU_BENCH_ORG_SCALE") == "full" {
		return orgScale{name: "full", quiet: 19, quietPRs: 2, floodPRs: 40, rateInsts: 60, ratePRs: 1}
	}
	return orgScale{name: "small", quiet: 3, quietPRs: 2, floodPRs: 10, rateInsts: 20, ratePRs: 1}
}

// Goals of BenchmarkOrgScale (issue 46), each a ratio measured in one run.
const (
	goalQuietVsIdle = 1.5 // quiet installations' p95 wait beside the flood ÷ without it
	goalSpeedUp     = 2.5 // three worker processes' dispatch rate ÷ one's
)

// scaleLatency is how long the simulated GitHub takes to answer each call
// (real GitHub takes longer): the worker processes wait on GitHub, as they
// do in production, more than on each other.
const scaleLatency = 20 * time.Millisecond

// BenchmarkOrgScale drives an organisation's busy hour through the front
// door: the simulated GitHub (limits on, DESIGN §11: GitHub's content
// limits and quotas in real time) delivers signed pull_request "opened"
// webhooks to two `chakshu web` processes of the real binary, three
// `chakshu worker` processes dispatch on PostgreSQL (pacing on: Chakshu's
// defaults), the simulated Actions runner runs chakshu-action against the
// scripted model, and the reviews are published. One installation floods
// while others open a few pull requests; a quiet-only control, and a
// one-worker control of the dispatch rate, run in the same benchmark.
func BenchmarkOrgScale(b *testing.B) {
	for range b.N {
		orgScaleOnce(b, scaleSize())
	}
}

func orgScaleOnce(b *testing.B, size orgScale) {
	bin, cleanup, err := cluster.Build()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cleanup)
	limits := cluster.GitHubLimits
	limits.Latency = scaleLatency
	// The dispatch-rate phases' Actions runs are left to no runner: they
	// measure dispatch alone.
	held := func(wr ghsim.WorkflowRun) bool { return strings.HasPrefix(wr.Repo, "rate") }
	c := cluster.Start(b, cluster.Options{Binary: bin, Webs: 2, Workers: 3, WebhookSecret: "org-scale-secret",
		Limits: &limits, Hold: held})
	w := &scaleWorld{c: c, sim: c.SB.Sim}
	warm := w.installations(b, "warmup", 1)
	quietIdle := w.installations(b, "quietidle", size.quiet)
	quietBusy := w.installations(b, "quietbusy", size.quiet)
	flood := w.installations(b, "flood", 1)
	rate1 := w.installations(b, "rate1-", size.rateInsts)
	rate3 := w.installations(b, "rate3-", size.rateInsts)
	w.waitSynced(b)

	// One review first, so the control does not pay for the first runner
	// downloads and cold caches.
	w.waitReviews(b, w.open(b, warm, 1))

	callsBefore := w.sim.Calls()
	// The quiet-only control, then the same beside the flood.
	idle := w.open(b, quietIdle, size.quietPRs)
	w.waitReviews(b, idle)
	// The flood's webhooks go first; the quiet installations' arrive while
	// it is being worked through.
	floodPRs := w.open(b, flood, size.floodPRs)
	busyQuiet := w.open(b, quietBusy, size.quietPRs)
	w.waitReviews(b, busyQuiet)
	w.waitReviews(b, floodPRs)
	// The calls after a review is posted (its check run completed) count.
	cluster.WaitFor(b, 10*time.Minute, "every run to end", func() bool {
		return w.c.Count(`SELECT count(*) FROM runs WHERE status NOT IN ('succeeded', 'failed', 'cancelled')`) == 0
	})
	all := slices.Concat(idle, busyQuiet, floodPRs)
	completed, twice := w.published(all)
	asked := w.asked(b, all)
	calls, content := callsSince(callsBefore, w.sim.Calls())
	idleP95, busyP95 := p95(w.waits(idle)), p95(w.waits(busyQuiet))
	quietRatio := float64(busyP95) / float64(max(idleP95, time.Millisecond))

	// The dispatch rate with one worker process, then with three.
	workers := c.ByMode("worker")
	for _, p := range workers[1:] {
		c.Stop(p)
	}
	r1 := w.dispatchRate(b, rate1, size.ratePRs, workers[:1])
	for _, p := range workers[1:] {
		w.restart(b, p)
	}
	r3 := w.dispatchRate(b, rate3, size.ratePRs, workers)
	speedUp := r3 / max(r1, 1e-9)
	refused := w.sim.Refused() // in the whole run

	perReview := func(n int) float64 { return float64(n) / float64(max(completed, 1)) }
	b.ReportMetric(perReview(calls), "calls/review")
	b.ReportMetric(perReview(content), "content-writes/review")
	b.ReportMetric(float64(refused.Secondary), "secondary-refusals")
	b.ReportMetric(quietRatio, "quiet-p95/idle")
	b.ReportMetric(speedUp, "3-workers/1")
	fmt.Printf("org scale (%s; 2 web and 3 worker processes of the real binary on PostgreSQL, GitHub simulated with its limits, pacing on): "+
		"one installation opens %d PRs beside %d quiet ones opening %d each; a quiet-only control of %d more\n",
		size.name, size.floodPRs, size.quiet, size.quietPRs, size.quiet)
	fmt.Printf("org scale: reviews completed %d of %d, posted twice %d; goal all, none twice\n", completed, asked, twice)
	fmt.Printf("org scale: GitHub calls per review end to end (web, worker and runner, every call the simulator answered): %.1f; goal ≤ %d\n",
		perReview(calls), goalCallsPerReview)
	fmt.Printf("org scale: content-creating writes per review: %.1f; goal ≤ %d\n", perReview(content), goalContentPerReview)
	fmt.Printf("org scale: secondary-limit refusals %d (concurrency %d), primary %d; goal 0\n", refused.Secondary, refused.Concurrent, refused.Primary)
	fmt.Printf("org scale: quiet installations' p95 wait, webhook → review published: %s beside the flood, %s in the quiet-only control (%.2f×); goal ≤ %.1f×\n",
		busyP95.Round(time.Millisecond), idleP95.Round(time.Millisecond), quietRatio, goalQuietVsIdle)
	fmt.Printf("org scale: stored webhooks → dispatched runs, %d runs over %d installations: %.1f runs/s with 1 worker process, %.1f with 3 (%.2f×); goal ≥ %.1f×\n",
		w.rateRuns, size.rateInsts, r1, r3, speedUp, goalSpeedUp)
}

// scaleWorld is the cluster and the pull requests the benchmark opened.
type scaleWorld struct {
	c        *cluster.Cluster
	sim      *ghsim.Sim
	insts    int
	rateRuns int
}

// scalePR is one pull request opened and when its webhook was sent.
type scalePR struct {
	repo   string
	number int
	opened time.Time
}

// installations creates n organisations named prefix1…prefixN, each with a
// repository, the sandbox's reviewers repository, and the App installed on
// it (the installation webhook makes Chakshu sync the reviewers).
func (w *scaleWorld) installations(b *testing.B, prefix string, n int) []string {
	b.Helper()
	reviewers := map[string]string{}
	err := fs.WalkDir(sandbox.ReviewersFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(sandbox.ReviewersFS(), p)
		reviewers["reviewers/"+p] = string(body)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	var orgs []string
	for i := range n {
		org := fmt.Sprintf("%s%d", prefix, i+1)
		w.sim.CreateOrg(org)
		w.sim.CreateRepo(org, "app", map[string]string{"main.go": "package main\n", ".github/workflows/chakshu.yml": action.WorkflowTemplate})
		w.sim.CreateRepo(org, "chakshu-reviewers", reviewers)
		w.sim.SetPermission(org+"/app", sandbox.Writer, "write")
		w.sim.Install(w.c.SB.AppID, org, nil, nil)
		orgs = append(orgs, org)
	}
	w.insts += n
	return orgs
}

// waitSynced waits until every installation's reviewers are synced.
func (w *scaleWorld) waitSynced(b *testing.B) {
	b.Helper()
	want := 3 * (w.insts + 1) // and the sandbox's own org
	cluster.WaitFor(b, 15*time.Minute, "every installation's reviewers to sync", func() bool {
		return w.c.Count(`SELECT count(*) FROM reviewers WHERE synced_commit <> ''`) >= want
	})
}

// openOne opens a pull request on org/app adding a Go file the two auto
// reviewers (correctness, security) review: two review runs.
func (w *scaleWorld) openOne(org string, i int) scalePR {
	repo := org + "/app"
	branch := fmt.Sprintf("lookup-%d", i)
	w.sim.CreateBranch(repo, branch, "main")
	w.sim.Commit(repo, branch, map[string]string{fmt.Sprintf("lookup%d.go", i): fmt.Sprintf(`package main

import "database/sql"

// Lookup%d finds a refund.
func Lookup%d(db *sql.DB, id string) error {
	_, err := db.Query("SELECT * FROM refunds WHERE id = '" + id + "'")
	return err
}
`, i, i)}, "add lookup "+branch)
	at := time.Now()
	n := w.sim.OpenPR(repo, branch, "main", "Lookup "+branch, "Adds a lookup.", sandbox.Writer, false)
	return scalePR{repo: repo, number: n, opened: at}
}

// open opens per pull requests on each of orgs, taking turns.
func (w *scaleWorld) open(b *testing.B, orgs []string, per int) []scalePR {
	b.Helper()
	var out []scalePR
	for i := range per {
		for _, org := range orgs {
			out = append(out, w.openOne(org, i))
		}
	}
	return out
}

// reviewsPerPR is the auto reviewers a PR of openOne gets.
const reviewsPerPR = 2

// waitReviews waits until each PR has its reviews.
func (w *scaleWorld) waitReviews(b *testing.B, prs []scalePR) {
	b.Helper()
	cluster.WaitFor(b, 60*time.Minute, fmt.Sprintf("the reviews of %d PRs", len(prs)), func() bool {
		for _, pr := range prs {
			if len(w.sim.Reviews(pr.repo, pr.number)) < reviewsPerPR {
				return false
			}
		}
		return true
	})
}

var runMarker = regexp.MustCompile(`<!-- chakshu:run:([0-9]+) -->`)

// published counts the runs whose review is on GitHub, and the reviews
// posted for a run that already had one.
func (w *scaleWorld) published(prs []scalePR) (completed, twice int) {
	for _, pr := range prs {
		seen := map[string]bool{}
		for _, r := range w.sim.Reviews(pr.repo, pr.number) {
			for _, m := range runMarker.FindAllStringSubmatch(r.Body, -1) {
				if seen[m[1]] {
					twice++
				} else {
					seen[m[1]] = true
					completed++
				}
			}
		}
	}
	return completed, twice
}

// asked counts the review runs Chakshu queued for prs.
func (w *scaleWorld) asked(b *testing.B, prs []scalePR) int {
	b.Helper()
	n := 0
	for _, pr := range prs {
		owner, name, _ := strings.Cut(pr.repo, "/")
		n += w.c.Count(`SELECT count(*) FROM runs r JOIN repositories p ON p.id = r.repository_runs
			WHERE p.owner = $1 AND p.name = $2 AND r.pr_number = $3 AND r.kind = 'review'`, owner, name, pr.number)
	}
	return n
}

// waits are webhook → review published, for each review on prs.
func (w *scaleWorld) waits(prs []scalePR) []time.Duration {
	var out []time.Duration
	for _, pr := range prs {
		for _, r := range w.sim.Reviews(pr.repo, pr.number) {
			out = append(out, r.At.Sub(pr.opened))
		}
	}
	return out
}

// dispatchRate opens per pull requests on each of orgs while the running
// worker processes are frozen (SIGSTOP), so the simulator's deliveries,
// which it sends one at a time, are all stored when they wake; it returns
// the review runs dispatched per second from the wake-up to the last
// dispatch (no runner takes them: held). The webhook intake has its own
// benchmark (server/webhook).
func (w *scaleWorld) dispatchRate(b *testing.B, orgs []string, per int, workers []*cluster.Proc) float64 {
	b.Helper()
	want := len(orgs) * per * reviewsPerPR
	w.rateRuns = want
	prefix := strings.TrimRight(orgs[0], "0123456789")
	count := func() int {
		return w.c.Count(`SELECT count(*) FROM runs r JOIN repositories p ON p.id = r.repository_runs
			WHERE p.owner LIKE $1 AND r.dispatched_at IS NOT NULL`, prefix+"%")
	}
	for _, p := range workers {
		w.c.Signal(p, syscall.SIGSTOP)
	}
	w.open(b, orgs, per)
	w.sim.WaitDeliveries()
	start := time.Now()
	for _, p := range workers {
		w.c.Signal(p, syscall.SIGCONT)
	}
	cluster.WaitFor(b, 30*time.Minute, fmt.Sprintf("%d runs dispatched", want), func() bool { return count() >= want })
	var last time.Time
	err := w.c.DB.QueryRow(`SELECT max(r.dispatched_at) FROM runs r JOIN repositories p ON p.id = r.repository_runs
		WHERE p.owner LIKE $1`, prefix+"%").Scan(&last)
	if err != nil {
		b.Fatal(err)
	}
	return float64(want) / last.Sub(start).Seconds()
}

// restart starts a stopped worker process again and waits until it works.
func (w *scaleWorld) restart(b *testing.B, p *cluster.Proc) {
	b.Helper()
	log := filepath.Join(w.c.LogDir, p.Name+".log")
	before := startedLines(log)
	w.c.Start(p)
	cluster.WaitFor(b, 60*time.Second, p.Name+" to start", func() bool { return startedLines(log) > before })
}

func startedLines(log string) int {
	body, _ := os.ReadFile(log)
	return strings.Count(string(body), `"msg":"worker started"`)
}

// callsSince is the calls made between two of the simulator's counts, and
// of them the content-creating writes.
func callsSince(before, after map[string]int) (calls, content int) {
	for k, v := range after {
		d := v - before[k]
		calls += d
		if ghsim.CreatesContent(k) {
			content += d
		}
	}
	return calls, content
}

func p95(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[(len(ds)*95-1)/100]
}
