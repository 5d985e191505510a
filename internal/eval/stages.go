package eval

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// A Stage is one configuration of the review method (issue 41): how many
// passes, how many of them must report a finding (grouped by meaning,
// findings.Group), and whether the verifier checks what survives.
type Stage struct {
	Name    string `json:"name"`
	Samples int    `json:"samples"`
	Agree   int    `json:"agree"`
	Verify  bool   `json:"verify"`
}

// Stages are the method's steps, each adding one to the one before: one
// pass; three passes grouped by meaning, kept when two agree; and those
// verified.
var Stages = []Stage{
	{Name: "one pass", Samples: 1, Agree: 1},
	{Name: "passes+grouping", Samples: 3, Agree: 2},
	{Name: "passes+grouping+verify", Samples: 3, Agree: 2, Verify: true},
}

// Apply sets the stage's passes, agreement and verification on every
// reviewer (a copy).
func (s Stage) Apply(rs []reviewerconfig.Local) []reviewerconfig.Local {
	out := make([]reviewerconfig.Local, len(rs))
	for i, r := range rs {
		r.Config.Samples, r.Config.Agree, r.Config.Verify = s.Samples, s.Agree, s.Verify
		out[i] = r
	}
	return out
}

// StageResult is a stage's evaluation.
type StageResult struct {
	Stage  Stage   `json:"stage"`
	Report *Report `json:"report"`
}

// RunStages evaluates cfg once per stage, the reviewers set as the stage says.
func RunStages(ctx context.Context, cfg Config, stages []Stage) ([]StageResult, error) {
	out := make([]StageResult, 0, len(stages))
	rs := cfg.Reviewers
	for _, s := range stages {
		fmt.Fprintf(logOr(cfg.Log), "stage %s\n", s.Name)
		cfg.Reviewers = s.Apply(rs)
		rep, err := Run(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", s.Name, err)
		}
		out = append(out, StageResult{Stage: s, Report: rep})
	}
	return out, nil
}

func logOr(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// WriteStages prints the stages side by side: one row per stage with the
// overall figures over every expected comment (the leaderboard's "any"),
// findings, cost per PR and the share of input tokens read from the
// prompt cache.
func WriteStages(w io.Writer, res []StageResult) error {
	if len(res) == 0 {
		return nil
	}
	r0 := res[0].Report
	fmt.Fprintf(w, "Corpus %s: %d pull requests; every reviewer's findings together, every expected comment counted.\n\n", r0.Corpus, r0.Cases)
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "stage\tpasses\tagree\tverify\tprecision\trecall\tF1\tTP\tFP\tFN\tfindings/PR\tcost/PR\tcache-read share\t\n")
	for _, s := range res {
		f, cases := s.Report.Overall, float64(max(s.Report.Cases, 1))
		verify := "off"
		if s.Stage.Verify {
			verify = "on"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t%.2f\t$%.4f\t%.1f%%\t\n", s.Stage.Name, s.Stage.Samples, s.Stage.Agree, verify,
			f.Total.Precision, f.Total.Recall, f.Total.F1, f.Total.TP, f.Total.FP, f.Total.FN,
			float64(f.Findings)/cases, f.CostPerPR, 100*f.CacheReadShare)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
	return nil
}
