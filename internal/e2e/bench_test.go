package e2e

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
)

// BenchmarkTriggerToDispatch measures, through the production wiring in
// sandbox mode, the time from a PR comment asking for a review to the
// workflow_dispatch call reaching GitHub (the simulator): webhook delivery,
// signature check and store, event handling, queueing, the dispatcher's wake-up,
// the check run and the PR look-up. DESIGN §11: median ≤ 50 ms.
func BenchmarkTriggerToDispatch(b *testing.B) {
	c := start(b, "", nil)
	sim := c.SB.Sim
	waitFor(b, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(b) })
	var mu sync.Mutex
	dispatched := map[string]time.Time{}
	sim.OnDispatch(func(r ghsim.WorkflowRun) {
		mu.Lock()
		dispatched[fmt.Sprint(r.Inputs["run_id"])] = time.Now()
		mu.Unlock()
	})
	const n = 20
	var lat []time.Duration
	for i := 0; i < n; i++ {
		pr := c.SB.PRs[i%len(c.SB.PRs)]
		mu.Lock()
		before := len(dispatched)
		mu.Unlock()
		start := time.Now()
		sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review style")
		deadline := time.Now().Add(30 * time.Second)
		var at time.Time
		for at.IsZero() {
			mu.Lock()
			if len(dispatched) > before {
				for _, v := range dispatched {
					if v.After(start) && (at.IsZero() || v.Before(at)) {
						at = v
					}
				}
			}
			mu.Unlock()
			if time.Now().After(deadline) {
				b.Fatalf("no dispatch for trigger %d", i)
			}
			time.Sleep(time.Millisecond)
		}
		lat = append(lat, at.Sub(start))
		// Let the review finish so the next trigger for this PR queues a new run.
		waitFor(b, 60*time.Second, "the review to finish", func() bool {
			for _, cr := range sim.CheckRuns(pr.Repo) {
				if cr.Name == "Chakshu · style" && cr.Status != "completed" {
					return false
				}
			}
			return true
		})
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	med, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	b.ReportMetric(float64(med.Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	fmt.Printf("trigger → workflow dispatch (%d triggers): median %s, p99 %s; budget: median ≤ 50ms\n", n, med.Round(time.Millisecond/10), p99.Round(time.Millisecond/10))
}
