package e2e

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/finding"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/runnerproto"
	"github.com/chakshu-dev/chakshu/internal/runstate"
	"github.com/chakshu-dev/chakshu/internal/sandbox"
	"github.com/chakshu-dev/chakshu/internal/store"
)

// BenchmarkReviewTokens reviews every sandbox pull request with every
// sandbox reviewer (the scripted model reports cache figures by Anthropic's
// prompt caching rules) and prints what tokens cost: input billed at full
// price, the cache-read share of input and the cost per review, against the
// goal of cache reads ≥ 70% of input tokens on reviews of four or more turns
// (DESIGN §11; issue 27).
func BenchmarkReviewTokens(b *testing.B) {
	dir := b.TempDir()
	c := start(b, "", map[string]string{"CHAKSHU_DATA_DIR": dir})
	waitFor(b, 60*time.Second, "the reviewers to sync", func() bool { return c.reviewersSynced(b) })
	for _, pr := range c.SB.PRs {
		c.SB.Sim.Comment(pr.Repo, pr.Number, sandbox.Writer, "@chakshu review security correctness style")
	}
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{DataDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	want := 3 * len(c.SB.PRs)
	waitFor(b, 5*time.Minute, "every review to finish", func() bool {
		n, err := db.Run.Query().Where(run.KindEQ(run.KindReview), run.StatusIn(run.StatusSucceeded, run.StatusFailed)).Count(ctx)
		return err == nil && n >= want
	})
	rs, err := db.Run.Query().Where(run.KindEQ(run.KindReview), run.StatusEQ(run.StatusSucceeded)).All(ctx)
	if err != nil || len(rs) == 0 {
		b.Fatalf("no succeeded reviews: %v", err)
	}
	var full, read, write, cost float64
	var longFull, longRead, longWrite float64
	perModel := map[string]*[3]float64{} // reviews of 4+ turns: read, full, write
	for _, r := range rs {
		full += float64(r.InputTokens)
		read += float64(r.CacheReadTokens)
		write += float64(r.CacheWriteTokens)
		cost += r.CostUsd
		if r.Turns >= 4 {
			longFull += float64(r.InputTokens)
			longRead += float64(r.CacheReadTokens)
			longWrite += float64(r.CacheWriteTokens)
			m := perModel[r.Model]
			if m == nil {
				m = &[3]float64{}
				perModel[r.Model] = m
			}
			m[0] += float64(r.CacheReadTokens)
			m[1] += float64(r.InputTokens)
			m[2] += float64(r.CacheWriteTokens)
		}
	}
	share := func(rd, f, w float64) float64 {
		if rd+f+w == 0 {
			return 0
		}
		return rd / (rd + f + w)
	}
	n := float64(len(rs))
	b.ReportMetric(full/n, "full-price-input-tokens/review")
	b.ReportMetric(100*share(read, full, write), "cache-read-%")
	b.ReportMetric(cost/n, "usd/review")
	fmt.Printf("review tokens (%d sandbox reviews): %.0f input tokens at full price per review, cache reads %.1f%% of input (%.1f%% on reviews of 4+ turns), $%.4f per review; budget: cache reads ≥ 70%% of input on reviews of 4+ turns\n",
		len(rs), full/n, 100*share(read, full, write), 100*share(longRead, longFull, longWrite), cost/n)
	printEvidence(b, db, rs)
	// Per model: a prompt shorter than a model's minimum cacheable length is
	// not cached at all (docs "Prompt caching"), whatever the breakpoints.
	models := make([]string, 0, len(perModel))
	for m := range perModel {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		x := perModel[m]
		fmt.Printf("  %s: cache reads %.1f%% of input on reviews of 4+ turns\n", m, 100*share(x[0], x[1], x[2]))
	}
}

// printEvidence prints what the evidence checks did over the reviews: the
// runner's (counts it reported, stored with each run's result) and the
// publisher's own (Finding rows dropped for their evidence, or moved).
func printEvidence(b *testing.B, db *store.DB, rs []*ent.Run) {
	ctx := context.Background()
	var runner runnerproto.EvidenceReport
	for _, r := range rs {
		if st, err := runstate.Result(r); err == nil && st.Checked != nil && st.Checked.Evidence != nil {
			ev := st.Checked.Evidence
			runner.Kept += ev.Kept
			runner.Moved += ev.Moved
			runner.Dropped += ev.Dropped
		}
	}
	ids := make([]int, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	of := finding.HasRunWith(run.IDIn(ids...))
	dropped, err := db.Finding.Query().Where(of, finding.DroppedReasonIn(findings.DropEvidenceMissing, findings.DropEvidenceFar)).Count(ctx)
	if err != nil {
		b.Fatal(err)
	}
	moved, err := db.Finding.Query().Where(of, finding.EvidenceMovedFromNEQ(0)).Count(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(runner.Dropped), "evidence-dropped")
	b.ReportMetric(float64(runner.Moved), "evidence-moved")
	fmt.Printf("evidence checks (%d sandbox reviews): the runner kept %d findings, moved %d to their quote's lines and dropped %d whose quote is not in the file; Chakshu then dropped %d more and published %d moved findings\n",
		len(rs), runner.Kept, runner.Moved, runner.Dropped, dropped, moved)
}
