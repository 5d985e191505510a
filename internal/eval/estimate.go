package eval

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/chakshu-dev/chakshu/internal/models"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// What a review and a judging cost is estimated from, in tokens. They are
// rough figures for a plan, not a measurement: the report after a run gives
// the real cost and tokens per PR.
const (
	// passPromptTokens is one agent pass's fixed input over its turns: the
	// system prompt, tools, rules and the files it reads besides the diff.
	passPromptTokens = 20_000
	// passDiffReads is how many times a pass's turns carry the diff.
	passDiffReads = 3
	// passOutputTokens is one pass's output.
	passOutputTokens = 2_000
	// candidatesPerReview is the issues a review is judged by.
	candidatesPerReview = 4
	// extractTokens and verdictTokens are one extraction's and one verdict's
	// input; their outputs are a quarter and 80 tokens.
	extractTokens = 2_000
	verdictTokens = 450
)

// Estimate is what an evaluation is expected to cost before it runs.
type Estimate struct {
	Cases, Reviewers, Passes int
	// ReviewUSD is the expected cost of the reviews; CapUSD the most they
	// can cost (every run stops at its reviewer's max_cost_usd).
	ReviewUSD, CapUSD float64
	// JudgeCalls and JudgeUSD are the judge's expected calls and cost.
	JudgeCalls int
	JudgeUSD   float64
}

// Total is the expected cost of the whole evaluation.
func (e Estimate) Total() float64 { return e.ReviewUSD + e.JudgeUSD }

// EstimateCost estimates an evaluation of c by rvs (judged by judgeModel when
// judge is set) at the catalogue's prices: cases × reviewers × passes of
// review, each capped by the reviewer's max_cost_usd, plus one extraction per
// review (and per case for all reviewers together) and golden comments ×
// issues verdicts, for the cases that have golden comments.
func EstimateCost(c *Corpus, rvs []reviewerconfig.Local, src *models.Source, judge bool, judgeModel string) (Estimate, error) {
	if src == nil {
		src = models.Static(models.Builtin())
	}
	cat, err := src.Catalog()
	if err != nil {
		return Estimate{}, err
	}
	cost := func(model string, in, out int64) (float64, error) {
		e, err := cat.Lookup(model)
		if err != nil {
			return 0, err
		}
		return e.Cost(models.Usage{InputTokens: in, OutputTokens: out}), nil
	}
	est := Estimate{Cases: len(c.Cases), Reviewers: len(rvs)}
	for _, k := range c.Cases {
		diff, err := changedBytes(k.Base, k.Head)
		if err != nil {
			return Estimate{}, err
		}
		for _, rv := range rvs {
			passes := max(rv.Config.Samples, 1)
			est.Passes += passes
			one, err := cost(rv.Config.Model, passPromptTokens+passDiffReads*diff/4, passOutputTokens)
			if err != nil {
				return Estimate{}, fmt.Errorf("reviewer %s: %w", rv.Name, err)
			}
			run := float64(passes) * one
			if rv.Config.MaxCostUSD > 0 {
				run = min(run, rv.Config.MaxCostUSD)
				est.CapUSD += rv.Config.MaxCostUSD
			} else {
				est.CapUSD += run
			}
			est.ReviewUSD += run
		}
		if !judge || len(k.Expected) == 0 {
			continue
		}
		// Each reviewer's review, and all of them together.
		for r := 0; r <= len(rvs); r++ {
			issues := candidatesPerReview
			if r == len(rvs) {
				issues *= len(rvs)
			}
			ex, err := cost(judgeModel, extractTokens, extractTokens/4)
			if err != nil {
				return Estimate{}, fmt.Errorf("judge: %w", err)
			}
			v, err := cost(judgeModel, verdictTokens, 80)
			if err != nil {
				return Estimate{}, fmt.Errorf("judge: %w", err)
			}
			calls := len(k.Expected) * issues
			est.JudgeCalls += 1 + calls
			est.JudgeUSD += ex + float64(calls)*v
		}
	}
	return est, nil
}

// changedBytes is the size of the head's files that differ from the base's
// (new or changed), a measure of the diff.
func changedBytes(base, head string) (int64, error) {
	var n int64
	err := filepath.WalkDir(head, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(head, p)
		if err != nil {
			return err
		}
		h, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if b, err := os.ReadFile(filepath.Join(base, rel)); err == nil && bytes.Equal(b, h) {
			return nil
		}
		n += int64(len(h))
		return nil
	})
	return n, err
}

// Write prints the estimate.
func (e Estimate) Write(w io.Writer, judgeModel string) {
	fmt.Fprintf(w, "Estimate: %d pull requests × %d reviewers (%d agent passes in all): reviews about $%.2f (at most $%.2f, the reviewers' max_cost_usd)",
		e.Cases, e.Reviewers, e.Passes, e.ReviewUSD, e.CapUSD)
	if e.JudgeCalls > 0 {
		fmt.Fprintf(w, "; judging by %s about %d calls, $%.2f", judgeModel, e.JudgeCalls, e.JudgeUSD)
	}
	fmt.Fprintf(w, "; about $%.2f in all.\n", e.Total())
}
