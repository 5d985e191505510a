package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the report as a table: one row per reviewer and profile,
// then the overall rows.
func (r *Report) WriteTable(w io.Writer) error {
	match := fmt.Sprintf("file and line ±%d", r.Window)
	if r.Judge {
		match += ", confirmed by the model judge"
	}
	fmt.Fprintf(w, "Corpus %s: %d pull requests; matching by %s.\n\n", r.Corpus, r.Cases, match)
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "reviewer\tprofile\tprecision\trecall\tF1\tTP\tFP\tFN\tfindings\tcost/PR\tdropped\tfailed\t")
	rows := append(append([]Figures{}, r.Reviewers...), r.Overall)
	for _, f := range rows {
		for i, p := range f.Profiles {
			name, extra := f.Reviewer, fmt.Sprintf("%d\t$%.4f\t%d\t%d", f.Findings, f.CostPerPR, f.Dropped, f.Failed)
			if i > 0 {
				name, extra = "", "\t\t\t"
			}
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t%s\t\n", name, p.Profile, p.Precision, p.Recall, p.F1, p.TP, p.FP, p.FN, extra)
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
	return nil
}

// WriteJSON prints the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
