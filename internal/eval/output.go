package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable prints the report as a table: one row per reviewer and profile,
// then the overall rows.
func (r *Report) WriteTable(w io.Writer) error {
	match := fmt.Sprintf("matching by file and line ±%d", r.Window)
	if r.Judge {
		match = "scored as the Martian benchmark scores, judged by " + r.JudgeModel
	}
	fmt.Fprintf(w, "Corpus %s: %d pull requests; %s.\n", r.Corpus, r.Cases, match)
	fmt.Fprintf(w, "Profile \"any\" counts every expected comment (the benchmark's leaderboard); strict, core and all only those of their categories.\n\n")
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "reviewer\tprofile\tprecision\trecall\tF1\tF%g\tTP\tFP\tFN\tfindings\tcost/PR\ttokens/PR\tcache-read\tdropped\tfailed\t\n", r.Beta)
	rows := append(append([]Figures{}, r.Reviewers...), r.Overall)
	for _, f := range rows {
		ps := append([]ProfileScores{{Profile: "any", Scores: f.Total, FBeta: FBeta(f.Total.Precision, f.Total.Recall, r.Beta)}}, f.Profiles...)
		for i, p := range ps {
			name, extra := f.Reviewer, fmt.Sprintf("%d\t$%.4f\t%.0f\t%.1f%%\t%d\t%d", f.Findings, f.CostPerPR, f.TokensPerPR, 100*f.CacheReadShare, f.Dropped, f.Failed)
			if i > 0 {
				name, extra = "", "\t\t\t\t\t"
			}
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t%s\t\n", name, p.Profile, p.Precision, p.Recall, p.F1, p.FBeta, p.TP, p.FP, p.FN, extra)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
	if r.Judge {
		fmt.Fprintf(w, "\nThe judge's model calls cost $%.4f.\n", r.JudgeCostUSD)
	}
	fmt.Fprintf(w, "Reviews cost $%.4f in all; wall time %s.\n", r.Overall.CostUSD, (time.Duration(r.WallSeconds * float64(time.Second))).Round(time.Second))
	return nil
}

// WriteJSON prints the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
