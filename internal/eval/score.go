package eval

import "slices"

// Profiles are the benchmark's category profiles, narrowest first
// (offline/analysis/score_profiles.py, PROFILE_CATEGORIES).
var Profiles = []Profile{
	{"strict", []string{"bug", "security", "concurrency", "data", "api"}},
	{"core", []string{"bug", "security", "concurrency", "data", "api", "perf", "test_gap", "doc_defect"}},
	{"all", Categories},
}

// Profile is a named set of categories an expected comment must have to count.
type Profile struct {
	Name       string
	Categories []string
}

// Has says whether category counts under p (a comment without a category
// counts under none, as in the benchmark).
func (p Profile) Has(category string) bool { return slices.Contains(p.Categories, category) }

// Counts are true positives, false positives and misses.
type Counts struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
}

// Add counts one case's matching under p, as the benchmark does: a matched
// comment is a true positive and an unmatched one a miss only when its
// category is in the profile; every unmatched finding is a false positive
// under every profile.
func (c *Counts) Add(p Profile, m Matching, es []Expected) {
	for _, pr := range m.Pairs {
		if p.Has(es[pr.Expected].Category) {
			c.TP++
		}
	}
	for _, j := range m.UnmatchedExpected {
		if p.Has(es[j].Category) {
			c.FN++
		}
	}
	c.FP += len(m.UnmatchedFindings)
}

// Scores are the figures of Counts.
type Scores struct {
	Counts
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Score computes precision, recall and F1 (0 where undefined, as the
// benchmark does).
func (c Counts) Score() Scores {
	s := Scores{Counts: c}
	if c.TP+c.FP > 0 {
		s.Precision = float64(c.TP) / float64(c.TP+c.FP)
	}
	if c.TP+c.FN > 0 {
		s.Recall = float64(c.TP) / float64(c.TP+c.FN)
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}
