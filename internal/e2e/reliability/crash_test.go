package reliability

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/e2e/cluster"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
)

const relRepo = sandbox.Org + "/payments-api"

// openPRs opens n pull requests on relRepo, each adding a Go file the
// auto-reviewers (correctness, security) pick up: two review runs per PR.
func openPRs(c *cluster.Cluster, n int, tag string, extra func(i int) string) []int {
	var out []int
	for i := 0; i < n; i++ {
		branch := fmt.Sprintf("%s-%d", tag, i)
		c.SB.Sim.CreateBranch(relRepo, branch, "main")
		body := fmt.Sprintf(`package rel

import "database/sql"

// Lookup%d finds a refund.
func Lookup%d(db *sql.DB, id string) error {
	_, err := db.Query("SELECT * FROM refunds WHERE id = '" + id + "'")
	return err
}
`, i, i)
		if extra != nil {
			body += extra(i)
		}
		c.SB.Sim.Commit(relRepo, branch, map[string]string{fmt.Sprintf("internal/rel/%s_%d.go", tag, i): body}, "add lookup "+branch)
		out = append(out, c.SB.Sim.OpenPR(relRepo, branch, "main", "Lookup "+branch, "Adds a lookup.", sandbox.Writer, false))
	}
	return out
}

// figures are what a reliability test prints and asserts.
type figures struct {
	deliveries, events, redelivered, runs, terminal, succeeded, failed, kills int
	duplicates, lost                                                          int
	drain                                                                     time.Duration
	// refused is what GitHub's limits (the simulator's realistic mode)
	// refused: Chakshu's pacing should keep it at zero.
	refused ghsim.Refusals
}

var markerRE = regexp.MustCompile(`<!-- chakshu:(finding|run|reply|answer):([A-Za-z0-9._-]+) -->`)

// duplicates counts hidden-ID markers posted more than once on a PR: a
// review-level run marker twice, an inline finding twice, a reply twice.
func duplicates(t *testing.T, sim *ghsim.Sim, repo string, prs []int) int {
	t.Helper()
	dups := 0
	for _, n := range prs {
		seen := map[string]int{}
		add := func(body string, kinds ...string) {
			for _, m := range markerRE.FindAllStringSubmatch(body, -1) {
				for _, k := range kinds {
					if m[1] == k {
						seen[m[1]+":"+m[2]]++
					}
				}
			}
		}
		for _, r := range sim.Reviews(repo, n) {
			add(r.Body, "run")
		}
		for _, rc := range sim.ReviewComments(repo, n) {
			if rc.InReplyTo == 0 {
				add(rc.Body, "finding")
			} else {
				add(rc.Body, "reply")
			}
		}
		for _, ic := range sim.IssueComments(repo, n) {
			add(ic.Body, "run", "reply", "answer")
		}
		for k, v := range seen {
			if v > 1 {
				t.Errorf("PR #%d: %s posted %d times", n, k, v)
				dups += v - 1
			}
		}
	}
	return dups
}

// redeliverFailed redelivers (as an operator would from GitHub's delivery
// page) every delivery no attempt of which was accepted; it returns how many.
func redeliverFailed(sim *ghsim.Sim) int {
	ok := map[string]bool{}
	for _, d := range sim.Deliveries() {
		if d.Status >= 200 && d.Status < 300 {
			ok[d.ID] = true
		}
	}
	n := 0
	for _, d := range sim.Deliveries() {
		if !ok[d.ID] {
			ok[d.ID] = true
			sim.Redeliver(d.ID) //nolint:errcheck
			n++
		}
	}
	return n
}

// settle redelivers refused deliveries and waits until every event and run
// is terminal; it returns the figures.
func settle(t *testing.T, c *cluster.Cluster, prs []int, wantRuns int, limit time.Duration) figures {
	t.Helper()
	sim := c.SB.Sim
	start := time.Now()
	var f figures
	deadline := start.Add(limit)
	for {
		sim.WaitDeliveries()
		f.redelivered += redeliverFailed(sim)
		sim.WaitDeliveries()
		pendingEvents := c.Count(`SELECT count(*) FROM webhook_events WHERE status NOT IN ('done','failed')`)
		open := c.Count(`SELECT count(*) FROM runs WHERE status NOT IN ('succeeded','failed','cancelled')`)
		runs := c.Count(`SELECT count(*) FROM runs`)
		checksOpen := 0
		for _, cr := range sim.CheckRuns(relRepo) {
			if cr.Status != "completed" {
				checksOpen++
			}
		}
		if pendingEvents == 0 && open == 0 && runs >= wantRuns && checksOpen == 0 && redeliverFailed(sim) == 0 {
			break
		}
		if time.Now().After(deadline) {
			rows, _ := c.DB.Query(`SELECT id, status, lease_owner, attempts, failure_detail FROM runs WHERE status NOT IN ('succeeded','failed','cancelled') LIMIT 10`)
			if rows != nil {
				for rows.Next() {
					var id, att int
					var st, lo, fd string
					rows.Scan(&id, &st, &lo, &att, &fd) //nolint:errcheck
					t.Logf("open run %d %s lease=%q attempts=%d %s", id, st, lo, att, fd)
				}
				rows.Close()
			}
			t.Fatalf("not drained after %s: %d events pending, %d runs open of %d (want ≥ %d), %d check runs open",
				limit, pendingEvents, open, runs, wantRuns, checksOpen)
		}
		time.Sleep(time.Second)
	}
	f.drain = time.Since(start)

	ids := map[string]bool{}
	for _, d := range sim.Deliveries() {
		ids[d.ID] = true
	}
	f.deliveries = len(ids)
	f.events = c.Count(`SELECT count(*) FROM webhook_events`)
	if distinct := c.Count(`SELECT count(DISTINCT delivery_id) FROM webhook_events`); distinct != f.events {
		t.Errorf("%d webhook events for %d delivery ids", f.events, distinct)
	}
	stored := map[string]bool{}
	rows, err := c.DB.Query(`SELECT delivery_id FROM webhook_events`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id) //nolint:errcheck
		stored[id] = true
	}
	rows.Close()
	for id := range ids {
		if !stored[id] {
			f.lost++
		}
	}
	f.runs = c.Count(`SELECT count(*) FROM runs`)
	f.terminal = c.Count(`SELECT count(*) FROM runs WHERE status IN ('succeeded','failed','cancelled')`)
	f.succeeded = c.Count(`SELECT count(*) FROM runs WHERE status = 'succeeded'`)
	f.failed = c.Count(`SELECT count(*) FROM runs WHERE status = 'failed'`)
	if n := c.Count(`SELECT count(*) FROM runs WHERE check_run_id <> 0 AND NOT check_completed`); n > 0 {
		t.Errorf("%d runs whose check run was not completed", n)
	}
	f.duplicates = duplicates(t, sim, relRepo, prs)
	f.kills = int(c.Kills())
	f.refused = sim.Refused()
	// Each succeeded review run has exactly one review on GitHub.
	reviewsByRun := map[string]int{}
	for _, n := range prs {
		for _, r := range sim.Reviews(relRepo, n) {
			for _, m := range markerRE.FindAllStringSubmatch(r.Body, -1) {
				if m[1] == "run" {
					reviewsByRun[m[2]]++
				}
			}
		}
	}
	rows, err = c.DB.Query(`SELECT id FROM runs WHERE status = 'succeeded' AND kind = 'review'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int
		rows.Scan(&id) //nolint:errcheck
		if reviewsByRun[fmt.Sprint(id)] != 1 {
			t.Errorf("succeeded run %d has %d reviews on GitHub, want 1", id, reviewsByRun[fmt.Sprint(id)])
		}
	}
	rows.Close()
	return f
}

func (f figures) String() string {
	return fmt.Sprintf("deliveries=%d events=%d redelivered=%d runs=%d terminal=%d succeeded=%d failed=%d kills=%d duplicates=%d lost=%d refused(secondary=%d primary=%d) drain=%s",
		f.deliveries, f.events, f.redelivered, f.runs, f.terminal, f.succeeded, f.failed, f.kills, f.duplicates, f.lost,
		f.refused.Secondary, f.refused.Primary, f.drain.Round(time.Millisecond))
}

func (f figures) check(t *testing.T) {
	t.Helper()
	if f.lost != 0 || f.duplicates != 0 || f.terminal != f.runs || f.events != f.deliveries || f.refused != (ghsim.Refusals{}) {
		t.Errorf("reliability broken: %s", f)
	}
}

// TestCrashSoak: during a burst of webhook deliveries (redeliveries mixed in)
// and review runs, random web and worker processes are killed with SIGKILL
// and restarted. Afterwards every delivery is stored exactly once, every run
// is terminal, nothing was posted twice and every check run is completed.
func TestCrashSoak(t *testing.T) {
	if testing.Short() && !full() {
		t.Skip("multi-process crash test: not in -short")
	}
	// Two auto review runs per PR, each about four content writes (its
	// check run, its dispatch, its review, a reply or comment): the full
	// size's 80 runs stay inside GitHub's 500 content writes an hour, which
	// Chakshu's pacing spreads over it after a burst of an eighth (one
	// write every 8 s): the settle gives them 45 minutes.
	deliveries, prsN := size(300, 5000), size(10, 40)
	c := startCluster(t, clusterOptions{webs: 2, workers: 3, env: map[string]string{
		"CHAKSHU_DEAD_WORKER_AFTER": "5s", // workers beat every 2/9 of it
	}})
	sim := c.SB.Sim
	rng := rand.New(rand.NewPCG(14, 14))
	var rngMu sync.Mutex
	randN := func(n int) int { rngMu.Lock(); defer rngMu.Unlock(); return rng.IntN(n) }

	stop := make(chan struct{})
	var killer sync.WaitGroup
	killer.Add(1)
	go func() { // kill -9 a random process every few seconds and restart it
		defer killer.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Duration(1500+randN(2000)) * time.Millisecond):
			}
			all := append(c.ByMode("web"), c.ByMode("worker")...)
			p := all[randN(len(all))]
			c.Kill(p)
			time.Sleep(time.Duration(randN(800)) * time.Millisecond)
			c.Start(p)
		}
	}()

	burstStart := time.Now()
	var prs []int
	var prMu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < prsN; i++ {
			n := openPRs(c, 1, fmt.Sprintf("crash%d", i), nil)
			prMu.Lock()
			prs = append(prs, n...)
			prMu.Unlock()
			time.Sleep(time.Duration(size(300, 100)) * time.Millisecond)
		}
	}()
	var sent atomic.Int64
	for int(sent.Load()) < deliveries {
		prMu.Lock()
		var pr int
		if len(prs) > 0 {
			pr = prs[randN(len(prs))]
		}
		prMu.Unlock()
		if pr == 0 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if randN(10) == 0 { // a redelivery of an earlier delivery
			ds := sim.Deliveries()
			sim.Redeliver(ds[randN(len(ds))].ID) //nolint:errcheck
		} else {
			sim.Comment(relRepo, pr, sandbox.Writer, fmt.Sprintf("Thanks, looking at this (note %d).", sent.Load()))
		}
		sent.Add(1)
		if full() {
			time.Sleep(5 * time.Millisecond)
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	wg.Wait()
	sim.WaitDeliveries()
	burst := time.Since(burstStart)
	close(stop)
	killer.Wait()
	for _, p := range c.ByMode("web") {
		c.WaitHealthy(p, 60*time.Second)
	}
	f := settle(t, c, prs, 2*prsN, time.Duration(size(4, 45))*time.Minute)
	t.Logf("crash soak (burst %s): %s", burst.Round(time.Millisecond), f)
	fmt.Printf("crash soak: %s\n", f)
	logFailureReasons(t, c)
	f.check(t)
	if f.kills == 0 {
		t.Error("nothing was killed")
	}
}

// logFailureReasons prints how many runs failed for each reason, so a soak's
// failures can be told apart (a kill mid-publish, a lost Actions run).
func logFailureReasons(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	rows, err := c.DB.Query(`SELECT failure_reason, count(*) FROM runs WHERE status = 'failed' GROUP BY 1 ORDER BY 2 DESC`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var reason string
		var n int
		if err := rows.Scan(&reason, &n); err != nil {
			t.Fatal(err)
		}
		t.Logf("failed runs: %d × %s", n, reason)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// The last lines of the Actions log of a few failed runs say what the
	// runner saw.
	ids, err := c.DB.Query(`SELECT actions_run_id FROM runs WHERE status = 'failed' AND actions_run_id > 0 ORDER BY id LIMIT 5`)
	if err != nil {
		t.Fatal(err)
	}
	defer ids.Close()
	for ids.Next() {
		var id int64
		if err := ids.Scan(&id); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(c.ActionsDir, fmt.Sprintf("actions-run-%d.log", id)))
		if err != nil {
			t.Logf("Actions run %d: no log: %v", id, err)
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		t.Logf("Actions run %d, log tail:\n  %s", id, strings.Join(lines[max(0, len(lines)-6):], "\n  "))
	}
}
