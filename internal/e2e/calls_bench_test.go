package e2e

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/internal/sandbox"
)

// callsBeforeWritePort is what BenchmarkGitHubCallsPerReview measured on
// commit fa24787, before the GitHub write port (issue 20 item 1): the
// figure to compare against.
const callsBeforeWritePort = 21

// callsBeforeUseCases is what it measured on commit e3ea84d, before the
// shared "request a review" use case (issue 20 item 3): 20.
const callsBeforeUseCases = 20

// callsBeforeJobUseCase is what it measured on commit e3f6fed, before the
// shared "build a job" use case (issue 20 item 3), whose job no longer
// fetches a diff its complete files list already holds: 19.
const callsBeforeJobUseCase = 19

// BenchmarkGitHubCallsPerReview counts, through the production wiring in
// sandbox mode, the GitHub calls (REST and GraphQL, as the simulator counts
// them, the simulated runner's included) one review takes from the PR
// comment asking for it to its completed check run.
func BenchmarkGitHubCallsPerReview(b *testing.B) {
	c := start(b, "", nil)
	sim := c.SB.Sim
	waitFor(b, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(b) })
	total := func() (n int, by map[string]int) {
		by = sim.Calls()
		for _, v := range by {
			n += v
		}
		return n, by
	}
	const reviews = 5
	var counts []int
	var last map[string]int
	for i := 0; i < reviews; i++ {
		pr := c.SB.PRs[i%len(c.SB.PRs)]
		before, byBefore := total()
		sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review style")
		time.Sleep(50 * time.Millisecond)
		waitFor(b, 60*time.Second, "the review to finish", func() bool {
			open := false
			for _, cr := range sim.CheckRuns(pr.Repo) {
				if cr.Name == "Chakshu · style" && cr.Status != "completed" {
					open = true
				}
			}
			return !open && sim.CallCount("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}") > byBefore["PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}"]
		})
		time.Sleep(200 * time.Millisecond) // the review-request removal and the last tidy calls
		after, byAfter := total()
		counts = append(counts, after-before)
		last = map[string]int{}
		for k, v := range byAfter {
			if d := v - byBefore[k]; d > 0 {
				last[k] = d
			}
		}
	}
	sort.Ints(counts)
	med := counts[len(counts)/2]
	b.ReportMetric(float64(med), "calls/review")
	var keys []string
	for k, v := range last {
		keys = append(keys, fmt.Sprintf("%s ×%d", k, v))
	}
	sort.Strings(keys)
	fmt.Printf("GitHub calls per review, trigger → completed check (%d reviews): median %d; before the write port: %d; before the shared use cases: %d; before the job use case: %d\n",
		reviews, med, callsBeforeWritePort, callsBeforeUseCases, callsBeforeJobUseCase)
	if testing.Verbose() {
		fmt.Println("  last review: " + strings.Join(keys, ", "))
	}
}
