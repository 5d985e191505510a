package e2e

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent/installation"
	"github.com/chakshu-dev/chakshu/internal/ghsim"
	"github.com/chakshu-dev/chakshu/internal/ghwrite"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// BenchmarkTriggerToDispatch measures, through the production wiring in
// sandbox mode, Chakshu's own time from a PR comment asking for a review to
// the review's check run appearing on the PR and to the workflow_dispatch
// call reaching GitHub (the simulator): webhook delivery, signature check and
// store, event handling, queueing, the dispatcher's wake-up, the check run
// and the PR look-up. DESIGN §11: dispatch median ≤ 50 ms, issue 46: first
// check ≤ 2 s.
//
// It asks at a rate inside GitHub's content limits (80 writes a minute, 500
// an hour per installation, which Chakshu's pacing keeps to): before each
// trigger it waits until the installation's budget has room for a new
// review's two writes (its check run and its dispatch), and prints that
// wait apart, the time GitHub's limits cost, so the latency figures are
// Chakshu's own. A trigger whose review still met the budget inside Chakshu
// is counted (goal 0).
func BenchmarkTriggerToDispatch(b *testing.B) {
	c := start(b, "", nil)
	sim := c.SB.Sim
	ctx := context.Background()
	waitFor(b, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(b) })
	db, err := store.Open(ctx, store.Options{DataDir: c.DataDir})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	budget := ghwrite.NewDBBudget(db, ghwrite.GitHubWindows) // the wiring's default windows
	var mu sync.Mutex
	dispatched := map[string]time.Time{}
	sim.OnDispatch(func(r ghsim.WorkflowRun) {
		mu.Lock()
		dispatched[fmt.Sprint(r.Inputs["run_id"])] = time.Now()
		mu.Unlock()
	})
	const name = "Chakshu · style"
	seen := map[int64]bool{}
	for _, pr := range c.SB.PRs {
		for _, cr := range sim.CheckRuns(pr.Repo) {
			seen[cr.ID] = true
		}
	}
	const n = 8
	var toCheck, toDispatch []time.Duration
	var budgetWait time.Duration
	waited, heldInside := 0, 0
	for i := 0; i < n; i++ {
		pr := c.SB.PRs[i%len(c.SB.PRs)]
		// Room for the new review's check run and dispatch, as the pacing sees it.
		paused := time.Now()
		for {
			now := time.Now()
			room, err := budget.Room(ctx, c.SB.InstID, ghwrite.Starting, 2, now)
			if err != nil {
				b.Fatal(err)
			}
			held, err := c.startsHeld(ctx, db)
			if err != nil {
				b.Fatal(err)
			}
			if room = max(room, held.Sub(now)); room <= 0 {
				break
			}
			time.Sleep(room)
		}
		if w := time.Since(paused); w > time.Millisecond {
			budgetWait += w
			waited++
		}
		mu.Lock()
		before := len(dispatched)
		mu.Unlock()
		start := time.Now()
		sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review style")
		deadline := start.Add(60 * time.Second)
		var checkAt, dispatchAt time.Time
		for checkAt.IsZero() || dispatchAt.IsZero() {
			now := time.Now()
			if checkAt.IsZero() {
				for _, cr := range sim.CheckRuns(pr.Repo) {
					if cr.Name == name && !seen[cr.ID] {
						seen[cr.ID], checkAt = true, now
					}
				}
			}
			mu.Lock()
			if dispatchAt.IsZero() && len(dispatched) > before {
				for _, v := range dispatched {
					if v.After(start) && (dispatchAt.IsZero() || v.Before(dispatchAt)) {
						dispatchAt = v
					}
				}
			}
			mu.Unlock()
			if now.After(deadline) {
				b.Fatalf("trigger %d: no check run or no dispatch within a minute", i)
			}
			time.Sleep(time.Millisecond)
		}
		toCheck, toDispatch = append(toCheck, checkAt.Sub(start)), append(toDispatch, dispatchAt.Sub(start))
		if held, err := c.startsHeld(ctx, db); err != nil {
			b.Fatal(err)
		} else if held.After(start) {
			heldInside++
		}
		// Let the review finish so the next trigger for this PR queues a new run.
		waitFor(b, 120*time.Second, "the review to finish", func() bool {
			for _, cr := range sim.CheckRuns(pr.Repo) {
				if cr.Name == name && cr.Status != "completed" {
					return false
				}
			}
			return true
		})
	}
	checkMed, checkP99 := percentiles(toCheck)
	med, p99 := percentiles(toDispatch)
	b.ReportMetric(float64(checkMed.Microseconds())/1000, "check-median-ms")
	b.ReportMetric(float64(med.Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(budgetWait.Seconds(), "budget-wait-s")
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond / 10) }
	fmt.Printf("trigger → first check on the PR (%d triggers, budget with room): median %s, p99 %s; goal ≤ 2s\n", n, r(checkMed), r(checkP99))
	fmt.Printf("trigger → workflow dispatch (%d triggers, budget with room): median %s, p99 %s; goal: median ≤ 50ms\n", n, r(med), r(p99))
	fmt.Printf("waiting for the content budget (GitHub's 80 writes/min, 500/h): %s in all, before %d of %d triggers; reviews the budget still held inside Chakshu: %d (goal 0)\n",
		budgetWait.Round(100*time.Millisecond), waited, n, heldInside)
}

// startsHeld is until when the sandbox installation's new reviews are held
// for the content budget (queue.HoldStarts); zero when never.
func (c *chakshu) startsHeld(ctx context.Context, db *store.DB) (time.Time, error) {
	in, err := db.Installation.Query().Where(installation.GithubID(c.SB.InstID)).Only(ctx)
	if err != nil || in.StartsHeldUntil == nil {
		return time.Time{}, err
	}
	return *in.StartsHeldUntil, nil
}

// percentiles are the median and the p99 of ds (sorted in place).
func percentiles(ds []time.Duration) (med, p99 time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], ds[len(ds)*99/100]
}
