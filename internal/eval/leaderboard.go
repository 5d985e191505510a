package eval

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// The Martian benchmark's published results: a checkout's
// offline/results/<judge>/evaluations.json maps each pull request's URL to
// each tool's Evaluation. Its dashboard (offline/analysis/
// benchmark_dashboard.py) sums every tool's tp, fp and fn over the pull
// requests and computes precision, recall and F1 from the sums; the
// leaderboard does the same, so its rows are the dashboard's.

// resultsDir finds the results folder of a benchmark checkout: DIR/offline/
// results, or DIR/results when DIR is the offline folder.
func resultsDir(dir string) (string, error) {
	for _, d := range []string{filepath.Join(dir, "offline", "results"), filepath.Join(dir, "results")} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d, nil
		}
	}
	return "", fmt.Errorf("%s: no offline/results folder (want a checkout of withmartian/code-review-benchmark)", dir)
}

// MartianJudges lists the judges with published evaluations, sorted (the
// dashboard's default judge is the first).
func MartianJudges(dir string) ([]string, error) {
	rd, err := resultsDir(dir)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(rd)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(rd, e.Name(), "evaluations.json")); e.IsDir() && err == nil {
			out = append(out, e.Name())
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no <judge>/evaluations.json", rd)
	}
	return out, nil
}

// PickJudge resolves name (a judge's folder name, or a part of exactly one,
// such as "opus") among the published judges; "" is the dashboard's default.
func PickJudge(dir, name string) (string, error) {
	js, err := MartianJudges(dir)
	if err != nil {
		return "", err
	}
	if name == "" {
		return js[0], nil
	}
	if slices.Contains(js, name) {
		return name, nil
	}
	var hits []string
	for _, j := range js {
		if strings.Contains(j, name) {
			hits = append(hits, j)
		}
	}
	if len(hits) != 1 {
		return "", fmt.Errorf("--judge %q: want one of %s", name, strings.Join(js, ", "))
	}
	return hits[0], nil
}

// Evaluations are one judge's evaluations: PR URL → tool → Evaluation.
type Evaluations map[string]map[string]Evaluation

// LoadEvaluations reads DIR's published evaluations under judge.
func LoadEvaluations(dir, judge string) (Evaluations, error) {
	rd, err := resultsDir(dir)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(rd, judge, "evaluations.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var evs Evaluations
	if err := json.Unmarshal(b, &evs); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return evs, nil
}

// GoldenCategories maps golden comment text to its category, from DIR's
// golden_comments/*.json (score_profiles.py's lookup); comments without a
// category are left out.
func GoldenCategories(dir string) (map[string]string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "offline", "golden_comments", "*.json"))
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(dir, "golden_comments", "*.json"))
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var prs []struct {
			Comments []struct{ Comment, Category string } `json:"comments"`
		}
		if err := json.Unmarshal(b, &prs); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, p := range prs {
			for _, c := range p.Comments {
				if c.Comment != "" && c.Category != "" {
					out[c.Comment] = c.Category
				}
			}
		}
	}
	return out, nil
}

// Row is one line of the leaderboard.
type Row struct {
	Tool string
	Scores
	FBeta float64
	// CostPerPR is known for Chakshu's rows only (-1 otherwise).
	CostPerPR float64
	// Note says how a row was scored when not by the table's judge.
	Note string
}

// Board is a leaderboard: rows sorted by F1 (or F-beta under a profile).
type Board struct {
	Judge   string
	Profile string // "" for every golden comment, as the dashboard counts
	Beta    float64
	Rows    []Row
}

// Tally sums each tool's counts over the pull requests: every golden
// comment (profile nil, the dashboard's way) or only those of a profile's
// categories (score_profiles.py's way, which also leaves skipped entries
// out).
func Tally(evs Evaluations, profile *Profile, categories map[string]string) map[string]Counts {
	out := map[string]Counts{}
	for _, tools := range evs {
		for tool, ev := range tools {
			c := out[tool]
			if profile == nil {
				c.Total(ev)
			} else if !ev.Skipped {
				c.AddProfile(*profile, ev, categories)
			}
			out[tool] = c
		}
	}
	return out
}

// NewBoard makes the rows of tallies.
func NewBoard(judge string, profile *Profile, beta float64, tallies map[string]Counts) *Board {
	b := &Board{Judge: judge, Beta: beta}
	if profile != nil {
		b.Profile = profile.Name
	}
	for tool, c := range tallies {
		s := c.Score()
		b.Rows = append(b.Rows, Row{Tool: tool, Scores: s, FBeta: FBeta(s.Precision, s.Recall, beta), CostPerPR: -1})
	}
	b.sort()
	return b
}

func (b *Board) sort() {
	slices.SortStableFunc(b.Rows, func(x, y Row) int {
		if b.Profile != "" {
			if c := cmp.Compare(y.FBeta, x.FBeta); c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(y.F1, x.F1), cmp.Compare(x.Tool, y.Tool))
	})
}

// AddReport adds Chakshu's rows from a results file (`chakshu eval --out`):
// one per reviewer and one for all of them together, with cost per PR. A
// note marks rows not comparable with the benchmark's: another corpus than
// the pull requests of evs, matched by place, or another judge.
func (b *Board) AddReport(rep *Report, evs Evaluations) {
	var notes []string
	bench := map[string]bool{}
	for u := range evs {
		if o, r, n, err := parsePRURL(u); err == nil {
			bench[fmt.Sprintf("%s/%s#%d", o, r, n)] = true
		}
	}
	for _, r := range rep.Runs {
		if !bench[r.Case] {
			notes = append(notes, fmt.Sprintf("on corpus %s (%d pull requests), not the benchmark's", rep.Corpus, rep.Cases))
			break
		}
	}
	switch {
	case !rep.Judge:
		notes = append(notes, "matched by place, not judged")
	case rep.JudgeModel != "" && !judgeNamesMatch(b.Judge, rep.JudgeModel):
		notes = append(notes, "judged by "+rep.JudgeModel)
	}
	note := strings.Join(notes, "; ")
	figs := append(append([]Figures{}, rep.Reviewers...), rep.Overall)
	for _, f := range figs {
		name := "chakshu/" + f.Reviewer
		if f.Reviewer == "overall" {
			name = "chakshu (all reviewers)"
		}
		s := f.Total
		if b.Profile != "" {
			for _, p := range f.Profiles {
				if p.Profile == b.Profile {
					s = p.Scores
				}
			}
		}
		b.Rows = append(b.Rows, Row{Tool: name, Scores: s, FBeta: FBeta(s.Precision, s.Recall, b.Beta), CostPerPR: f.CostPerPR, Note: note})
	}
	b.sort()
}

// judgeNamesMatch says whether a published judge's folder name
// (anthropic_claude-opus-4-5-20251101) names the model id.
func judgeNamesMatch(folder, model string) bool {
	return strings.Contains(folder, model) || strings.Contains(model, folder)
}

// Write prints the board: tool, precision, recall, F1 (three decimals), then
// tp, fp and fn; F-beta under a profile; cost per PR where known.
func (b *Board) Write(w io.Writer) error {
	what := "every golden comment, as the benchmark's dashboard counts"
	if b.Profile != "" {
		what = fmt.Sprintf("golden comments of the %s profile's categories, as score_profiles.py counts", b.Profile)
	}
	fmt.Fprintf(w, "Judge %s; %s; sums over the pull requests.\n\n", b.Judge, what)
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fb := ""
	if b.Profile != "" {
		fb = fmt.Sprintf("F%g\t", b.Beta)
	}
	fmt.Fprintf(tw, "tool\tprecision\trecall\tF1\t%stp\tfp\tfn\tcost/PR\t\n", fb)
	var notes []string
	for _, r := range b.Rows {
		cost := ""
		if r.CostPerPR >= 0 {
			cost = fmt.Sprintf("$%.4f", r.CostPerPR)
		}
		fbv := ""
		if b.Profile != "" {
			fbv = fmt.Sprintf("%.3f\t", r.FBeta)
		}
		name := r.Tool
		if r.Note != "" {
			if !slices.Contains(notes, r.Note) {
				notes = append(notes, r.Note)
			}
			name += strings.Repeat("*", slices.Index(notes, r.Note)+1)
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%s%d\t%d\t%d\t%s\t\n", name, r.Precision, r.Recall, r.F1, fbv, r.TP, r.FP, r.FN, cost)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) {
		fmt.Fprintln(w, strings.TrimRight(line, " \n"))
	}
	for i, n := range notes {
		fmt.Fprintf(w, "%s %s\n", strings.Repeat("*", i+1), n)
	}
	return nil
}

// ErrNoDashboard: the benchmark's dashboard has no figures to compare with.
var ErrNoDashboard = errors.New("nothing to compare with")

// CheckDashboard compares the board (every golden comment) with the
// benchmark's own offline/analysis/benchmark_dashboard.json for its judge:
// tp, fp and fn must be equal, precision, recall and F1 equal to the
// dashboard's one decimal of a percent. It returns how many tools it
// compared; a judge the dashboard does not cover is ErrNoDashboard.
func (b *Board) CheckDashboard(dir string) (int, error) {
	var dash struct {
		Models map[string]struct {
			OverallMetrics map[string]struct {
				Precision, Recall, F1 float64
				TP                    int `json:"tp"`
				FP                    int `json:"fp"`
				FN                    int `json:"fn"`
			} `json:"overall_metrics"`
		} `json:"models"`
	}
	p := filepath.Join(dir, "offline", "analysis", "benchmark_dashboard.json")
	raw, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		return 0, fmt.Errorf("%s: %w", p, err)
	}
	m, ok := dash.Models[b.Judge]
	if !ok {
		return 0, fmt.Errorf("%w: %s has none for judge %s", ErrNoDashboard, p, b.Judge)
	}
	var errs []error
	n := 0
	for _, r := range b.Rows {
		if r.CostPerPR >= 0 {
			continue // Chakshu's rows
		}
		d, ok := m.OverallMetrics[r.Tool]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: not on the dashboard", r.Tool))
			continue
		}
		n++
		pct := func(x float64) float64 { return math.Round(x*1000) / 10 }
		if d.TP != r.TP || d.FP != r.FP || d.FN != r.FN || pct(r.Precision) != d.Precision || pct(r.Recall) != d.Recall || pct(r.F1) != d.F1 {
			errs = append(errs, fmt.Errorf("%s: dashboard P %.1f R %.1f F1 %.1f tp %d fp %d fn %d; here %.1f %.1f %.1f %d %d %d",
				r.Tool, d.Precision, d.Recall, d.F1, d.TP, d.FP, d.FN, pct(r.Precision), pct(r.Recall), pct(r.F1), r.TP, r.FP, r.FN))
		}
	}
	if n != len(m.OverallMetrics) {
		errs = append(errs, fmt.Errorf("the dashboard has %d tools, the evaluations %d", len(m.OverallMetrics), n))
	}
	return n, errors.Join(errs...)
}

// ReadReport reads a results file written by `chakshu eval --out`.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: not a results file of chakshu eval --out: %w", path, err)
	}
	if rep.Scoring == "" {
		return nil, fmt.Errorf("%s: not a results file of chakshu eval --out (no scoring)", path)
	}
	return &rep, nil
}
