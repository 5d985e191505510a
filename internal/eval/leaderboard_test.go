package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// martianFixture is a benchmark checkout in the published layout, with our
// own pull requests and figures: two judges, two tools, a pull request every
// tool skipped (no golden comments), categories in the golden comments.
const martianFixture = "testdata/martian"

func boardCounts(b *Board) map[string]Counts {
	out := map[string]Counts{}
	for _, r := range b.Rows {
		out[r.Tool] = r.Counts
	}
	return out
}

func TestLeaderboardSumsAsTheDashboard(t *testing.T) {
	j, err := PickJudge(martianFixture, "")
	if err != nil || j != "acme_judge-large" {
		t.Fatalf("default judge %q, %v: want the first by name, as the dashboard's default", j, err)
	}
	evs, err := LoadEvaluations(martianFixture, j)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBoard(j, nil, 2, Tally(evs, nil, nil))
	want := map[string]Counts{"tool-a": {TP: 1, FP: 1, FN: 3}, "tool-b": {TP: 3, FP: 4, FN: 1}}
	if d := cmp.Diff(want, boardCounts(b)); d != "" {
		t.Fatalf("counts (-want +got):\n%s", d)
	}
	if b.Rows[0].Tool != "tool-b" {
		t.Fatalf("not sorted by F1: %+v", b.Rows)
	}
	var out strings.Builder
	if err := b.Write(&out); err != nil {
		t.Fatal(err)
	}
	// tool-b: P 3/7, R 3/4, F1 6/11; tool-a: 1/2, 1/4, 1/3.
	for _, line := range []string{"tool-b      0.429   0.750  0.545   3   4   1", "tool-a      0.500   0.250  0.333   1   1   3"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("no row %q in\n%s", line, out.String())
		}
	}
	// The fixture's dashboard agrees; a dashboard that says otherwise is
	// reported, tool by tool.
	if n, err := b.CheckDashboard(martianFixture); n != 2 || err != nil {
		t.Fatalf("check: %d tools, %v", n, err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(martianFixture)); err != nil {
		t.Fatal(err)
	}
	dash := filepath.Join(dir, "offline", "analysis", "benchmark_dashboard.json")
	raw, _ := os.ReadFile(dash)
	if err := os.WriteFile(dash, []byte(strings.Replace(string(raw), `"f1": 54.5`, `"f1": 54.6`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CheckDashboard(dir); err == nil || !strings.Contains(err.Error(), "tool-b") || strings.Contains(err.Error(), "tool-a") {
		t.Fatalf("a dashboard with another F1 for tool-b: %v", err)
	}
	// A judge the dashboard does not cover has nothing to compare with,
	// which is not a difference.
	other := *b
	other.Judge = "acme_judge-other"
	if _, err := other.CheckDashboard(martianFixture); !errors.Is(err, ErrNoDashboard) {
		t.Fatalf("a judge the dashboard lacks: %v, want ErrNoDashboard", err)
	}
}

// Under a profile, as score_profiles.py: true positives and misses only of
// the profile's categories (looked up by golden comment text), every false
// positive, sorted by F-beta.
func TestLeaderboardProfiles(t *testing.T) {
	evs, err := LoadEvaluations(martianFixture, "acme_judge-large")
	if err != nil {
		t.Fatal(err)
	}
	cats, err := GoldenCategories(martianFixture)
	if err != nil || len(cats) != 4 {
		t.Fatalf("categories %v, %v", cats, err)
	}
	for _, tc := range []struct {
		profile string
		want    map[string]Counts
	}{
		{"strict", map[string]Counts{"tool-a": {TP: 1, FP: 1, FN: 1}, "tool-b": {TP: 2, FP: 4, FN: 0}}},
		{"core", map[string]Counts{"tool-a": {TP: 1, FP: 1, FN: 3}, "tool-b": {TP: 3, FP: 4, FN: 1}}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			p := profileNamed(tc.profile)
			b := NewBoard("acme_judge-large", &p, 2, Tally(evs, &p, cats))
			if d := cmp.Diff(tc.want, boardCounts(b)); d != "" {
				t.Fatalf("counts (-want +got):\n%s", d)
			}
			for i := 1; i < len(b.Rows); i++ {
				if b.Rows[i].FBeta > b.Rows[i-1].FBeta {
					t.Fatalf("not sorted by F2: %+v", b.Rows)
				}
			}
		})
	}
}

func TestPickJudge(t *testing.T) {
	for _, tc := range []struct{ name, want, err string }{
		{"acme_judge-small", "acme_judge-small", ""},
		{"small", "acme_judge-small", ""},
		{"judge", "", "want one of acme_judge-large, acme_judge-small"},
		{"opus", "", "want one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PickJudge(martianFixture, tc.name)
			if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("%q, %v", got, err)
			}
		})
	}
	if _, err := PickJudge(t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "offline/results") {
		t.Fatalf("no checkout: %v", err)
	}
}

// Chakshu's rows carry a note when they cannot be read beside the
// benchmark's: another corpus, matching by place, another judge.
func TestLeaderboardNotes(t *testing.T) {
	evs, err := LoadEvaluations(martianFixture, "acme_judge-large")
	if err != nil {
		t.Fatal(err)
	}
	onBench := []RunResult{{Case: "acme/payments-api#7"}, {Case: "acme/data-pipeline#9"}}
	for _, tc := range []struct {
		name string
		rep  Report
		note string
	}{
		{"same pull requests, same judge", Report{Judge: true, JudgeModel: "judge-large", Runs: onBench}, ""},
		{"another judge", Report{Judge: true, JudgeModel: "judge-small", Runs: onBench}, "judged by judge-small"},
		{"by place", Report{Runs: onBench}, "matched by place, not judged"},
		{"another corpus", Report{Judge: true, JudgeModel: "judge-large", Corpus: "mine", Cases: 1, Runs: []RunResult{{Case: "acme/web#1"}}},
			"on corpus mine (1 pull requests), not the benchmark's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBoard("acme_judge-large", nil, 2, Tally(evs, nil, nil))
			tc.rep.Overall = Figures{Reviewer: "overall", Total: Counts{TP: 1}.Score(), CostPerPR: 0.5}
			b.AddReport(&tc.rep, evs)
			var got []string
			for _, r := range b.Rows {
				if r.CostPerPR >= 0 {
					got = append(got, r.Tool+"|"+r.Note)
				}
			}
			if d := cmp.Diff([]string{"chakshu (all reviewers)|" + tc.note}, got); d != "" {
				t.Fatal(d)
			}
		})
	}
}
