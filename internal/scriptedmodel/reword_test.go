package scriptedmodel

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/findings"
)

// TestRewordVariesLikeAModel: with Reword, the passes of one run and the
// runs of one diff word the same findings differently, move some by a
// line, step some
// severities, and every reworded finding is still the same finding
// (findings.Same) as the script's own; the planted false finding, with a
// real quote, comes in every pass; and the answers are deterministic.
func TestRewordVariesLikeAModel(t *testing.T) {
	pass := func(n int) string {
		return fmt.Sprintf("This is independent review pass %d of %d: review the pull request on your own judgement.", n, 3)
	}
	truth := submitted(t, Handler(), "", "")
	moved, stepped := 0, 0
	for _, seed := range []int64{0, 1, 2} {
		h := New(Config{Reword: true, RewordSeed: seed})
		for n := 1; n <= 3; n++ {
			got := submitted(t, h, "", pass(n))
			if again := submitted(t, h, "", pass(n)); !cmp.Equal(again, got) {
				t.Fatalf("seed %d pass %d: two asks gave two answers", seed, n)
			}
			planted := 0
			for i := range got {
				f := &got[i]
				if Planted(f) {
					planted++
					if f.Evidence == "" || !containsLine(hunchDiff, f.Evidence) {
						t.Errorf("planted finding %q quotes %q, not a line of the diff", f.Title, f.Evidence)
					}
					continue
				}
				j := slices.IndexFunc(truth, func(k findings.Finding) bool { return findings.Same(f, &k) })
				if j < 0 {
					t.Errorf("seed %d pass %d: %q (line %d) is the same as none of the script's own findings %v", seed, n, f.Title, f.Line, ids(truth))
					continue
				}
				if f.Line != truth[j].Line {
					moved++
				}
				if f.Severity != truth[j].Severity {
					stepped++
					if d := f.Severity.Rank() - truth[j].Severity.Rank(); d != 1 && d != -1 {
						t.Errorf("%q moved %d severity steps", f.Title, d)
					}
				}
			}
			if planted != 1 {
				t.Errorf("seed %d pass %d: %d planted false findings, want 1", seed, n, planted)
			}
		}
	}
	// Over 9 answers of 3 findings each, the variation shows.
	if moved == 0 || stepped == 0 {
		t.Errorf("%d findings moved, %d severities stepped over nine answers; want some of each", moved, stepped)
	}
	distinct := map[string]bool{}
	for _, seed := range []int64{0, 1, 2} {
		for n := 1; n <= 3; n++ {
			for _, f := range submitted(t, New(Config{Reword: true, RewordSeed: seed}), "", pass(n)) {
				distinct[f.Title] = true
			}
		}
	}
	if len(distinct) < 2*len(truth) {
		t.Errorf("%d distinct titles over nine answers of %d findings; the wording does not vary", len(distinct), len(truth))
	}
}

func containsLine(diff, quote string) bool {
	for _, l := range addedLines(diff) {
		if strings.Contains(l.Text, quote) {
			return true
		}
	}
	return false
}
