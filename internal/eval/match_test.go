package eval

import (
	"context"
	"errors"
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
			m, err := Match(context.Background(), []Finding{{Path: tc.path, Line: tc.line}}, e, tc.window, nil)
			if err != nil {
				t.Fatal(err)
			}
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
	m, err := Match(context.Background(), fs, es, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Matching{Pairs: []Pair{{Finding: 1, Expected: 0}}, UnmatchedFindings: []int{0, 2}}
	if d := cmp.Diff(want, m); d != "" {
		t.Fatal(d)
	}
	// Two bugs close together, each with its finding: both match, though
	// each finding is in the other's window.
	m, _ = Match(context.Background(), []Finding{{Path: "a.go", Line: 24}, {Path: "a.go", Line: 23}},
		[]Expected{{Path: "a.go", Line: 23}, {Path: "a.go", Line: 24}}, 3, nil)
	if d := cmp.Diff([]Pair{{Finding: 1, Expected: 0}, {Finding: 0, Expected: 1}}, m.Pairs); d != "" {
		t.Fatal(d)
	}
}

func TestMatchWithoutLineOrPath(t *testing.T) {
	fs := []Finding{{Path: "a.go", Line: 500}}
	// No line: anywhere in the path.
	m, _ := Match(context.Background(), fs, []Expected{{Path: "a.go"}}, 0, nil)
	if len(m.Pairs) != 1 {
		t.Fatalf("a comment on a.go without a line did not match a finding in a.go: %+v", m)
	}
	// No path: only a judge can match it.
	m, _ = Match(context.Background(), fs, []Expected{{Comment: "c"}}, 3, nil)
	if len(m.Pairs) != 0 || len(m.UnmatchedExpected) != 1 {
		t.Fatalf("a comment without a path matched by place: %+v", m)
	}
	yes := func(context.Context, Finding, Expected) (bool, error) { return true, nil }
	m, _ = Match(context.Background(), fs, []Expected{{Comment: "c"}}, 3, yes)
	if len(m.Pairs) != 1 {
		t.Fatalf("the judge's yes did not match a comment without a path: %+v", m)
	}
}

func TestMatchJudge(t *testing.T) {
	fs := []Finding{{Path: "a.go", Line: 10, Title: "SQL"}, {Path: "a.go", Line: 11, Title: "TODO"}}
	es := []Expected{{Path: "a.go", Line: 11, Comment: "SQL"}}
	asked := 0
	same := func(_ context.Context, f Finding, e Expected) (bool, error) {
		asked++
		return f.Title == e.Comment, nil
	}
	m, err := Match(context.Background(), fs, es, 3, same)
	if err != nil {
		t.Fatal(err)
	}
	// The nearer finding (line 11) is refused; the farther one is the same problem.
	if d := cmp.Diff([]Pair{{Finding: 0, Expected: 0}}, m.Pairs); d != "" || asked != 2 {
		t.Fatalf("asked %d times; pairs %s", asked, d)
	}
	boom := errors.New("judge down")
	if _, err := Match(context.Background(), fs, es, 3, func(context.Context, Finding, Expected) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want the judge's", err)
	}
}

func TestParseVerdict(t *testing.T) {
	for s, want := range map[string]bool{"SAME": true, "same.": true, "**SAME**": true, " Same problem": true,
		"DIFFERENT": false, "": false, "Not the same": false, "SAMEISH": false} {
		if got := parseVerdict(s); got != want {
			t.Errorf("parseVerdict(%q) = %v", s, got)
		}
	}
}
