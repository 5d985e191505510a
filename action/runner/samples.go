package runner

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chakshu-dev/chakshu/action/agent"
	"github.com/chakshu-dev/chakshu/action/internal/ghlog"
	"github.com/chakshu-dev/chakshu/action/tools"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/syncbuf"
)

// minPassShare: a pass is not started when less than this part of an even
// share of the cost cap (MaxCostUSD / samples) or of the wall time is left.
// A pass with less would be asked for its result before it read anything,
// and its findings would be guesses that only add noise to the vote.
const minPassShare = 0.5

// maxParallelPasses bounds the passes that run at once (reviewer.yaml
// allows 5 passes; Cursor's Bugbot runs 8 in parallel): each holds a model
// request and reads the checkout.
const maxParallelPasses = 4

// runReview runs the job's agent: one pass, or, for a review whose job asks
// for samples above 1, that many independent passes at once (at most
// maxParallelPasses running), each with the PR's files in its own order
// (passPrompt), keeping the findings that at least agree of them report
// (grouped by meaning, findings.Group).
//
// The passes share the run's one cost cap honestly. A pass is given, when
// it starts, what is left of the cap (less what the passes still running
// may spend) divided by the passes not yet started, enforced by the agent
// on its running estimate (agent.Config.CostBudgetUSD); the gateway still
// enforces the run's cap. A pass is not started, and the log says so, when
// that is less than minPassShare of an even share (MaxCostUSD / samples),
// when less than minPassShare of its wave's share of the wall time is
// left, or after a pass stopped at the cost cap. Every pass runs until the
// run's deadline. The outcome sums every pass's turns, tool calls, tokens
// and cost; its result is the agreed findings. The stats are nil for a
// single pass.
func runReview(ctx context.Context, ac agent.Config) (*agent.Outcome, *findings.Samples) {
	job := ac.Job
	if job == nil || job.Kind != "review" || job.Samples <= 1 {
		return agent.Run(ctx, ac), nil
	}
	log := ac.Log
	if log == nil {
		log = io.Discard
	}
	log = &syncbuf.Writer{W: log} // the passes and their agents write at once
	ac.Log = log
	n := job.Samples
	wall := time.Duration(job.WallSeconds) * time.Second
	if wall <= 0 {
		wall = agent.DefaultWall
	}
	waves := (n + maxParallelPasses - 1) / maxParallelPasses
	evenCost, evenWall := job.MaxCostUSD/float64(n), wall/time.Duration(waves)
	deadline := time.Now().Add(wall)

	outs := make([]*agent.Outcome, n)
	var (
		mu              sync.Mutex
		spent, reserved float64
		capped          bool // a pass stopped at the cost cap
		wg              sync.WaitGroup
	)
	slots := make(chan struct{}, maxParallelPasses)
	firstAnswer := make(chan struct{})
	for i := 1; i <= n; i++ {
		if i == 2 {
			// The passes share the tools and system prompt, marked for the
			// prompt cache; an entry is there for others only once the
			// request that writes it is answered, so passes 2..N start when
			// pass 1's first answer has begun, and read it from the cache.
			select {
			case <-firstAnswer:
			case <-ctx.Done():
			}
		}
		slots <- struct{}{} // a slot frees when a pass ends
		mu.Lock()
		costLeft, wallLeft := job.MaxCostUSD-spent-reserved, time.Until(deadline)
		skip := ""
		switch {
		case capped:
			skip = "an earlier pass stopped at the run's cost cap"
		case job.MaxCostUSD > 0 && !worthAPass(costLeft, evenCost):
			skip = fmt.Sprintf("$%.4f of the $%.4f cost cap is left, under half a pass's share", max(costLeft, 0), job.MaxCostUSD)
		case !worthAPass(wallLeft.Seconds(), evenWall.Seconds()):
			skip = fmt.Sprintf("%s of the wall time is left, under half a pass's share", wallLeft.Round(time.Second))
		}
		budget := 0.0
		if skip == "" && job.MaxCostUSD > 0 {
			budget = costLeft / float64(n-i+1)
			reserved += budget
		}
		mu.Unlock()
		if skip != "" {
			fmt.Fprintf(log, "Pass %d of %d not started: %s\n", i, n, skip)
			if i == 1 {
				close(firstAnswer) // no first answer to wait for
			}
			<-slots
			continue
		}
		passJob := *job
		passJob.Prompt = passPrompt(job, i)
		passJob.WallSeconds = max(1, int(wallLeft.Round(time.Second)/time.Second))
		pc := ac
		pc.Job, pc.Pass, pc.Passes, pc.CostBudgetUSD = &passJob, i, n, budget
		pc.Lens = lensFor(job, i)
		var answered func() // pass 1's first model answer has begun
		if i == 1 {
			pc.HTTPClient, answered = onFirstResponse(ac.HTTPClient, firstAnswer)
		}
		fmt.Fprintf(log, "Pass %d of %d: up to $%.4f and %ds\n", i, n, budget, passJob.WallSeconds)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			out := agent.Run(ctx, pc)
			if answered != nil {
				answered() // pass 1 ended: do not hold the others whatever happened
			}
			mu.Lock()
			reserved -= budget
			spent += out.CostUSD
			capped = capped || (out.Failure != nil && out.Failure.Reason == agent.ReasonCostCap)
			outs[i-1] = out
			mu.Unlock()
			<-slots
		}(i)
	}
	wg.Wait()

	total := &agent.Outcome{}
	var passes []*findings.Result
	var lenses []string // the lens of each pass in passes
	var firstFailure *runnerproto.Failure
	for i, out := range outs {
		if out == nil {
			continue // not started
		}
		total.Turns += out.Turns
		total.ToolCalls += out.ToolCalls
		total.Usage.Input += out.Usage.Input
		total.Usage.Output += out.Usage.Output
		total.Usage.CacheWrite += out.Usage.CacheWrite
		total.Usage.CacheRead += out.Usage.CacheRead
		total.CostUSD += out.CostUSD
		if out.Failure != nil {
			fmt.Fprintf(log, "Pass %d of %d gave no result: %s\n", i+1, n, ghlog.Escape(out.Failure.Reason))
			if firstFailure == nil {
				firstFailure = out.Failure
			}
			continue
		}
		if out.Result == nil || out.Result.Review == nil { // the submit tool parsed it; a pass without one is not counted
			fmt.Fprintf(log, "Pass %d of %d gave an unreadable result\n", i+1, n)
			continue
		}
		passes = append(passes, out.Result.Review)
		if len(job.Lenses) > 0 {
			lenses = append(lenses, lensFor(job, i+1))
		}
	}
	if len(passes) == 0 {
		total.Failure = firstFailure
		if total.Failure == nil {
			total.Failure = &runnerproto.Failure{Reason: agent.ReasonCostCap, Detail: "no pass could be started within the run's cost cap and wall time"}
		}
		return total, nil
	}
	merged, stats := agreeOn(passes, n, job.Agree)
	stats.Lenses = lenses // nil without lenses: not sent, as an older server expects
	total.Result = &tools.Submission{Review: merged}
	fmt.Fprintf(log, "%d of %d passes ran: kept %d findings that at least %d reported, dropped %d\n", stats.Ran, stats.Passes, stats.Kept, stats.Agree, stats.Dropped)
	if stats.AgreeAsked > 0 {
		fmt.Fprintf(log, "agree %d could not be met: only %d of %d passes ran\n", stats.AgreeAsked, stats.Ran, stats.Passes)
	}
	return total, stats
}

// onFirstResponse returns c (http.DefaultClient when nil) with a transport
// that closes done when its first response begins, and a func that closes
// it if none came (each closes it at most once).
func onFirstResponse(c *http.Client, done chan struct{}) (*http.Client, func()) {
	if c == nil {
		c = http.DefaultClient
	}
	var once sync.Once
	signal := func() { once.Do(func() { close(done) }) }
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc := *c
	cc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := base.RoundTrip(r)
		if err == nil {
			signal()
		}
		return resp, err
	})
	return &cc, signal
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// plural is "1 finding", "2 findings".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// worthAPass says whether left (of the cost cap or the wall time) is enough
// to start a pass whose even share is even.
func worthAPass(left, even float64) bool { return left >= even*minPassShare }

// agreeOn merges the results of the passes that ran (of passes asked for):
// findings are grouped by meaning (findings.Group: same file, nearby
// lines, similar text), and a group is kept when at least agree passes
// report a finding of it (agree is lowered to the passes that ran when
// fewer ran). The kept finding is the most severe of its group, the
// earliest reported on a tie, in the order the groups first appeared.
// Checked is the union of the passes'; the summary is the one of the pass
// whose findings are closest to the kept ones, with a sentence on the
// passes and the vote.
func agreeOn(results []*findings.Result, passes, agree int) (*findings.Result, *findings.Samples) {
	asked := max(agree, 1)
	agree = min(asked, len(results))
	stats := &findings.Samples{Passes: passes, Ran: len(results), Agree: agree}
	if agree < asked {
		stats.AgreeAsked = asked // said on the check run, not lowered quietly
	}
	var all []findings.Finding
	var passOf []int // passOf[i] is the pass (index into results) of all[i]
	for p, res := range results {
		stats.PassFindings = append(stats.PassFindings, len(res.Findings))
		for _, f := range res.Findings {
			all = append(all, f)
			passOf = append(passOf, p)
		}
	}
	groups := findings.Group(all)
	groupOf := make([]int, len(all))
	out := &findings.Result{Findings: []findings.Finding{}, Checked: findings.Checked{Files: []string{}, Skills: []string{}}}
	kept := map[int]bool{}
	for g, members := range groups {
		voters := map[int]bool{} // a pass votes once for a group it reports twice
		best := members[0]
		for _, i := range members {
			groupOf[i] = g
			voters[passOf[i]] = true
			if all[i].Severity.Rank() < all[best].Severity.Rank() {
				best = i
			}
		}
		if len(voters) >= agree {
			out.Findings = append(out.Findings, all[best])
			kept[g] = true
		}
	}
	stats.Distinct, stats.Kept = len(groups), len(out.Findings)
	stats.Dropped = stats.Distinct - stats.Kept

	best, bestDiff := 0, -1
	first := 0 // index in all of results[i]'s first finding
	for i, res := range results {
		for _, f := range res.Checked.Files {
			if !slices.Contains(out.Checked.Files, f) {
				out.Checked.Files = append(out.Checked.Files, f)
			}
		}
		for _, s := range res.Checked.Skills {
			if !slices.Contains(out.Checked.Skills, s) {
				out.Checked.Skills = append(out.Checked.Skills, s)
			}
		}
		reported := map[int]bool{}
		for j := range res.Findings {
			reported[groupOf[first+j]] = true
		}
		first += len(res.Findings)
		diff := 0
		for g := range reported {
			if !kept[g] {
				diff++
			}
		}
		for g := range kept {
			if !reported[g] {
				diff++
			}
		}
		if bestDiff < 0 || diff < bestDiff {
			best, bestDiff = i, diff
		}
	}
	ran := fmt.Sprintf("%d independent passes", passes)
	if stats.Ran < passes {
		ran = fmt.Sprintf("%d of %d independent passes (the others gave no result)", stats.Ran, passes)
	}
	note := fmt.Sprintf("Reviewed in %s; kept %s at least %d of them reported and dropped %d that fewer reported.",
		ran, plural(stats.Kept, "finding"), agree, stats.Dropped)
	if stats.AgreeAsked > 0 {
		note += fmt.Sprintf(" The reviewer asks for agreement of %d passes, which could not be met.", stats.AgreeAsked)
	}
	base := strings.TrimSpace(results[best].Summary)
	if room := findings.MaxSummaryBytes - len(note) - 2; len(base) > room {
		base = strings.ToValidUTF8(base[:room], "") // a rune cut in two is dropped
	}
	out.Summary = strings.TrimSpace(base + "\n\n" + note)
	return out, stats
}
