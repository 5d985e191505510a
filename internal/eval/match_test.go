package eval

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatchWindow(t *testing.T) {
	e := []Expected{{Comment: "x", Severity: "High", Category: "bug", Path: "a.go", Line: 10}}
	for _, tc := range []struct {
		name   string
		path   string
		line   int
		window int
		want   bool
	}{
		{"same line", "a.go", 10, 0, true},
		{"at the window below", "a.go", 7, 3, true},
		{"at the window above", "a.go", 13, 3, true},
		{"one past below", "a.go", 6, 3, false},
		{"one past above", "a.go", 14, 3, false},
		{"zero window, next line", "a.go", 11, 0, false},
		{"other file, same line", "b.go", 10, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Match([]Finding{{Path: tc.path, Line: tc.line}}, e, tc.window)
			if got := len(m.Pairs) == 1; got != tc.want {
				t.Fatalf("matched %v, want %v (%+v)", got, tc.want, m)
			}
			if tc.want != (len(m.UnmatchedFindings) == 0 && len(m.UnmatchedExpected) == 0) {
				t.Fatalf("unmatched lists wrong: %+v", m)
			}
		})
	}
}

// One expected comment is matched once: a second finding on the same bug is
// a false positive, and the nearer finding is the one that matches.
func TestMatchDuplicatesAndNearestFirst(t *testing.T) {
	fs := []Finding{{Path: "a.go", Line: 12}, {Path: "a.go", Line: 10}, {Path: "a.go", Line: 11}}
	es := []Expected{{Path: "a.go", Line: 10}}
	m := Match(fs, es, 3)
	want := Matching{Pairs: []Pair{{Finding: 1, Expected: 0}}, UnmatchedFindings: []int{0, 2}}
	if d := cmp.Diff(want, m); d != "" {
		t.Fatal(d)
	}
	// Two bugs close together, each with its finding: both match, though
	// each finding is in the other's window.
	m = Match([]Finding{{Path: "a.go", Line: 24}, {Path: "a.go", Line: 23}},
		[]Expected{{Path: "a.go", Line: 23}, {Path: "a.go", Line: 24}}, 3)
	if d := cmp.Diff([]Pair{{Finding: 1, Expected: 0}, {Finding: 0, Expected: 1}}, m.Pairs); d != "" {
		t.Fatal(d)
	}
}

func TestMatchWithoutLineOrPath(t *testing.T) {
	fs := []Finding{{Path: "a.go", Line: 500}}
	// No line: anywhere in the path.
	m := Match(fs, []Expected{{Path: "a.go"}}, 0)
	if len(m.Pairs) != 1 {
		t.Fatalf("a comment on a.go without a line did not match a finding in a.go: %+v", m)
	}
	// No path: place cannot match it (the judge's scoring can).
	m = Match(fs, []Expected{{Comment: "c"}}, 3)
	if len(m.Pairs) != 0 || len(m.UnmatchedExpected) != 1 {
		t.Fatalf("a comment without a path matched by place: %+v", m)
	}
}
