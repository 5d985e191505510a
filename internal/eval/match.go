package eval

import (
	"cmp"
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

// Pair matches findings[Finding] to expected[Expected].
type Pair struct{ Finding, Expected int }

// Matching is the outcome of matching one case's findings.
type Matching struct {
	Pairs []Pair
	// Unmatched are the indexes of findings no expected comment took (false
	// positives) and of expected comments no finding took (misses).
	UnmatchedFindings, UnmatchedExpected []int
}

// Match pairs findings with expected comments by place, each at most once
// (location matching, for corpora whose comments have a path; the judge's
// scoring is JudgeReview). A pair is a candidate when the finding is on the
// comment's path within window lines of its line (a comment without a line:
// anywhere in its path; without a path: never). Candidates are taken nearest
// first, so when two findings sit on one planted bug the nearer one matches
// it and the other is a false positive.
func Match(fs []Finding, es []Expected, window int) Matching {
	type cand struct{ f, e, dist int }
	var cs []cand
	for j, e := range es {
		for i, f := range fs {
			switch {
			case e.Path == "", f.Path != e.Path:
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
	return m
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Comment is the finding as its review comment reads: title, then body.
func (f Finding) Comment() string {
	if f.Body == "" {
		return f.Title
	}
	return f.Title + "\n\n" + f.Body
}
