package eval

import (
	"math"
	"testing"
)

func TestProfilesAreTheBenchmarks(t *testing.T) {
	// offline/analysis/score_profiles.py, PROFILE_CATEGORIES.
	want := map[string]int{"strict": 5, "core": 8, "all": 10}
	for _, p := range Profiles {
		if len(p.Categories) != want[p.Name] {
			t.Errorf("%s has %d categories, want %d", p.Name, len(p.Categories), want[p.Name])
		}
	}
	for _, c := range []struct {
		cat               string
		strict, core, all bool
	}{
		{"bug", true, true, true}, {"api", true, true, true}, {"perf", false, true, true},
		{"doc_defect", false, true, true}, {"style", false, false, true}, {"speculative", false, false, true}, {"", false, false, false},
	} {
		got := [3]bool{Profiles[0].Has(c.cat), Profiles[1].Has(c.cat), Profiles[2].Has(c.cat)}
		if got != [3]bool{c.strict, c.core, c.all} {
			t.Errorf("%q in strict/core/all: %v", c.cat, got)
		}
	}
}

// A matched comment counts only under profiles with its category; unmatched
// findings are false positives under every profile.
func TestCountsUnderProfiles(t *testing.T) {
	es := []Expected{{Category: "bug"}, {Category: "style"}, {Category: "perf"}, {Category: ""}}
	m := Matching{Pairs: []Pair{{0, 0}, {1, 1}}, UnmatchedExpected: []int{2, 3}, UnmatchedFindings: []int{2, 3, 4}}
	want := map[string]Counts{"strict": {TP: 1, FP: 3, FN: 0}, "core": {TP: 1, FP: 3, FN: 1}, "all": {TP: 2, FP: 3, FN: 1}}
	for _, p := range Profiles {
		var c Counts
		c.Add(p, m, es)
		if c != want[p.Name] {
			t.Errorf("%s: %+v, want %+v", p.Name, c, want[p.Name])
		}
	}
}

func TestScore(t *testing.T) {
	s := Counts{TP: 3, FP: 1, FN: 3}.Score()
	if s.Precision != 0.75 || s.Recall != 0.5 || math.Abs(s.F1-0.6) > 1e-12 {
		t.Fatalf("%+v", s)
	}
	if z := (Counts{}).Score(); z.Precision != 0 || z.Recall != 0 || z.F1 != 0 {
		t.Fatalf("empty counts: %+v", z)
	}
	if z := (Counts{FP: 2}).Score(); z.Precision != 0 || z.F1 != 0 {
		t.Fatalf("only false positives: %+v", z)
	}
}
