package eval

import (
	"cmp"
	"context"
	"slices"
)

// Finding is one finding a reviewer posted on a case.
type Finding struct {
	Reviewer string `json:"reviewer"`
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Category string `json:"category"`
	Title    string `json:"title"`
	Body     string `json:"body"`
}

// Judge says whether a finding and an expected comment describe the same
// problem.
type Judge func(ctx context.Context, f Finding, e Expected) (bool, error)

// Pair matches findings[Finding] to expected[Expected].
type Pair struct{ Finding, Expected int }

// Matching is the outcome of matching one case's findings.
type Matching struct {
	Pairs []Pair
	// Unmatched are the indexes of findings no expected comment took (false
	// positives) and of expected comments no finding took (misses).
	UnmatchedFindings, UnmatchedExpected []int
}

// Match pairs findings with expected comments, each at most once. A pair is a
// candidate when the finding is on the comment's path within window lines of
// its line (a comment without a line: anywhere in its path); with a judge, a
// comment without a path is a candidate of every finding, and the judge must
// confirm each pair. Candidates are taken nearest first, so when two findings
// sit on one planted bug the nearer one matches it and the other is a false
// positive.
func Match(ctx context.Context, fs []Finding, es []Expected, window int, judge Judge) (Matching, error) {
	type cand struct{ f, e, dist int }
	var cs []cand
	for j, e := range es {
		for i, f := range fs {
			switch {
			case e.Path == "":
				if judge != nil {
					cs = append(cs, cand{i, j, 1 << 30})
				}
			case f.Path != e.Path:
			case e.Line == 0:
				cs = append(cs, cand{i, j, 1 << 29})
			default:
				if d := abs(f.Line - e.Line); d <= window {
					cs = append(cs, cand{i, j, d})
				}
			}
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.e, b.e), cmp.Compare(a.f, b.f))
	})
	usedF, usedE := make([]bool, len(fs)), make([]bool, len(es))
	var m Matching
	for _, c := range cs {
		if usedF[c.f] || usedE[c.e] {
			continue
		}
		if judge != nil {
			ok, err := judge(ctx, fs[c.f], es[c.e])
			if err != nil {
				return Matching{}, err
			}
			if !ok {
				continue
			}
		}
		usedF[c.f], usedE[c.e] = true, true
		m.Pairs = append(m.Pairs, Pair{Finding: c.f, Expected: c.e})
	}
	for i := range fs {
		if !usedF[i] {
			m.UnmatchedFindings = append(m.UnmatchedFindings, i)
		}
	}
	for j := range es {
		if !usedE[j] {
			m.UnmatchedExpected = append(m.UnmatchedExpected, j)
		}
	}
	return m, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
