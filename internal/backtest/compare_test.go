package backtest_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	bt "github.com/chakshu-dev/chakshu/internal/backtest"
	"github.com/chakshu-dev/chakshu/internal/findings"
)

func TestCompare(t *testing.T) {
	f := func(id string, s findings.Severity) bt.Found { return bt.Found{HiddenID: id, Severity: s} }
	found := func(title string, line int, s findings.Severity) bt.Found {
		fd := findings.Finding{Path: "a.go", Line: line, Side: "RIGHT", Severity: s, Category: "errors", Title: title,
			Body: title}
		return bt.Found{HiddenID: fd.ID(), Severity: s, Finding: fd}
	}
	outcomes := map[string]string{"fixed": "fixed", "noise": "dismissed", "liked": "acknowledged", "open": "open"}
	tests := []struct {
		name                    string
		old, new                []bt.Found
		kept, added, dropped    bt.Counts
		droppedFixed, dismissed int
	}{
		{name: "nothing either side", kept: bt.Counts{}, added: bt.Counts{}, dropped: bt.Counts{}},
		{name: "kept at the new severity", old: []bt.Found{f("a", findings.Minor)}, new: []bt.Found{f("a", findings.Major)},
			kept: bt.Counts{findings.Major: 1}, added: bt.Counts{}, dropped: bt.Counts{}},
		{name: "added and dropped by hidden ID", old: []bt.Found{f("a", findings.Nit)}, new: []bt.Found{f("b", findings.Blocker)},
			kept: bt.Counts{}, added: bt.Counts{findings.Blocker: 1}, dropped: bt.Counts{findings.Nit: 1}},
		{name: "dropped outcomes: only fixed and dismissed count",
			old:  []bt.Found{f("fixed", findings.Major), f("noise", findings.Nit), f("liked", findings.Minor), f("open", findings.Minor), f("never-posted", findings.Minor)},
			kept: bt.Counts{}, added: bt.Counts{}, dropped: bt.Counts{findings.Major: 1, findings.Nit: 1, findings.Minor: 3},
			droppedFixed: 1, dismissed: 1},
		{name: "reworded and moved a line by the new version: kept",
			old: []bt.Found{found("Unchecked error from os.Remove", 10, findings.Minor)}, new: []bt.Found{found("os.Remove error is ignored", 11, findings.Major)},
			kept: bt.Counts{findings.Major: 1}, added: bt.Counts{}, dropped: bt.Counts{}},
		{name: "same line, another finding: added and dropped",
			old: []bt.Found{found("Unchecked error from os.Remove", 10, findings.Minor)}, new: []bt.Found{found("Hard-coded temp directory", 10, findings.Minor)},
			kept: bt.Counts{}, added: bt.Counts{findings.Minor: 1}, dropped: bt.Counts{findings.Minor: 1}},
		{name: "a hidden ID twice in a run counts once", old: []bt.Found{f("x", findings.Minor), f("x", findings.Minor)},
			new: []bt.Found{f("y", findings.Nit), f("y", findings.Nit)}, kept: bt.Counts{}, added: bt.Counts{findings.Nit: 1}, dropped: bt.Counts{findings.Minor: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bt.Compare(tt.old, tt.new, func(id string) string { return outcomes[id] })
			want := bt.PRComparison{Kept: tt.kept, Added: tt.added, Dropped: tt.dropped, DroppedFixed: tt.droppedFixed, DroppedDismissed: tt.dismissed}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
}

// Amounts too small for cents still show in the comparison (a small
// model's review costs fractions of a cent), and a change that rounds to
// nothing says so instead of "−$0.00" or "−0s".
func TestReportShowsSmallAmounts(t *testing.T) {
	pr := bt.PRComparison{Repo: "acme/api", Number: 1, Kept: bt.Counts{findings.Minor: 1}, Added: bt.Counts{}, Dropped: bt.Counts{},
		OldCostUSD: 0.0007, NewCostUSD: 0.0005, OldDurationMS: 4200, NewDurationMS: 4100}
	md := bt.Result{Reviewer: "style", HeadSHA: "da1578d0", Picked: 1, PRs: []bt.PRComparison{pr}, MaxCostUSD: 2, SpentUSD: 0.0012}.Markdown()
	for _, want := range []string{"(spent $0.0012 of a $2.00 cap)", "Cost: $0.0007 → $0.0005 (−$0.0002)", "4s → 4s (±0s)", "| $0.0007 → $0.0005 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("comparison lacks %q:\n%s", want, md)
		}
	}
	pr.NewCostUSD = 0.00071
	if md := (bt.Result{Reviewer: "style", Picked: 1, PRs: []bt.PRComparison{pr}, MaxCostUSD: 2}).Markdown(); !strings.Contains(md, "(±$0)") {
		t.Errorf("a change too small to show:\n%s", md)
	}
}
