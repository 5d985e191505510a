package eval

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tableJudge answers from a table "golden|candidate" → verdict; a pair not
// in it is no match; "err" as reasoning makes the pair fail.
func tableJudge(t *testing.T, verdicts map[string]Verdict, asked *[]string) VerdictJudge {
	return func(_ context.Context, g, c string) (Verdict, error) {
		if asked != nil {
			*asked = append(*asked, g+"|"+c)
		}
		v := verdicts[g+"|"+c]
		if v.Reasoning == "err" {
			return Verdict{}, errors.New("not JSON")
		}
		return v, nil
	}
}

func golden(comments ...string) []Expected {
	var es []Expected
	for _, c := range comments {
		es = append(es, Expected{Comment: c, Severity: "High", Category: "bug"})
	}
	return es
}

// Each of Martian's scoring rules, on a case built so that the rule decides
// the counts.
func TestJudgeReviewRules(t *testing.T) {
	yes := func(c float64) Verdict { return Verdict{Match: true, Confidence: c, Reasoning: "same"} }
	for _, tc := range []struct {
		name       string
		golden     []Expected
		candidates []string
		verdicts   map[string]Verdict
		tp, fp, fn int
		// matchedBy is golden → the candidate it kept.
		matchedBy map[string]string
		errors    int
		skipped   bool
	}{
		{name: "no golden comments: skipped, its candidates are not false positives",
			golden: nil, candidates: []string{"x", "y"}, skipped: true},
		{name: "no candidates: every golden comment is a miss",
			golden: golden("a", "b"), candidates: nil, fn: 2},
		{name: "best confidence wins: the later, surer candidate is the match",
			golden: golden("a"), candidates: []string{"weak", "strong"},
			verdicts: map[string]Verdict{"a|weak": yes(0.6), "a|strong": yes(0.9)},
			tp:       1, matchedBy: map[string]string{"a": "strong"},
			// weak became a's running best before strong beat it, so it
			// stays matched: not a false positive.
			fp: 0},
		{name: "a less sure candidate after the best never becomes matched",
			golden: golden("a"), candidates: []string{"strong", "weak"},
			verdicts: map[string]Verdict{"a|weak": yes(0.6), "a|strong": yes(0.9)},
			tp:       1, fp: 1, matchedBy: map[string]string{"a": "strong"}},
		{name: "equal confidence: the first keeps the match",
			golden: golden("a"), candidates: []string{"first", "second"},
			verdicts: map[string]Verdict{"a|first": yes(0.8), "a|second": yes(0.8)},
			tp:       1, fp: 1, matchedBy: map[string]string{"a": "first"}},
		{name: "one candidate matches several golden comments",
			golden: golden("a", "b"), candidates: []string{"both", "other"},
			verdicts: map[string]Verdict{"a|both": yes(0.9), "b|both": yes(0.7)},
			tp:       2, fp: 1, matchedBy: map[string]string{"a": "both", "b": "both"}},
		{name: "a repeat of a matched candidate is not a false positive",
			golden: golden("a"), candidates: []string{"dup", "dup", "noise"},
			verdicts: map[string]Verdict{"a|dup": yes(0.9)},
			tp:       1, fp: 1, matchedBy: map[string]string{"a": "dup"}},
		{name: "repeats of an unmatched candidate are one false positive",
			golden: golden("a"), candidates: []string{"noise", "noise"}, fn: 1, fp: 1},
		{name: "match at confidence 0 does not count",
			golden: golden("a"), candidates: []string{"c"}, verdicts: map[string]Verdict{"a|c": yes(0)}, fn: 1, fp: 1},
		{name: "a confident no is no match",
			golden: golden("a"), candidates: []string{"c"}, verdicts: map[string]Verdict{"a|c": {Match: false, Confidence: 0.95}}, fn: 1, fp: 1},
		{name: "a failed verdict leaves its pair out and is recorded",
			golden: golden("a"), candidates: []string{"c", "d"},
			verdicts: map[string]Verdict{"a|c": {Reasoning: "err"}, "a|d": yes(0.7)},
			tp:       1, fp: 1, errors: 1, matchedBy: map[string]string{"a": "d"}},
		{name: "golden comments with the same text are one",
			golden: golden("a", "a"), candidates: []string{"c"}, fn: 1, fp: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked []string
			ev, err := JudgeReview(context.Background(), tc.golden, tc.candidates, tableJudge(t, tc.verdicts, &asked))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Skipped != tc.skipped || ev.TP != tc.tp || ev.FP != tc.fp || ev.FN != tc.fn || ev.ErrorsCount != tc.errors {
				t.Fatalf("skipped %v tp %d fp %d fn %d errors %d; want %v %d %d %d %d\n%+v", ev.Skipped, ev.TP, ev.FP, ev.FN, ev.ErrorsCount,
					tc.skipped, tc.tp, tc.fp, tc.fn, tc.errors, ev)
			}
			got := map[string]string{}
			for _, tp := range ev.TruePositives {
				got[tp.GoldenComment] = tp.MatchedCandidate
			}
			if tc.matchedBy == nil {
				tc.matchedBy = map[string]string{}
			}
			if d := cmp.Diff(tc.matchedBy, got); d != "" {
				t.Fatalf("matches (-want +got):\n%s", d)
			}
			// Every pair is judged (none when skipped or with no candidates).
			if want := len(tc.golden) * len(tc.candidates); !tc.skipped && len(asked) != want {
				t.Fatalf("judged %d pairs, want all %d", len(asked), want)
			}
		})
	}
}

// The review's comments, summary included, are joined and extracted; too
// little text or a failed extraction falls back to the raw comments.
func TestCandidates(t *testing.T) {
	split := func(_ context.Context, s string) ([]string, error) { return strings.Split(s, extractSeparator), nil }
	fail := func(context.Context, string) ([]string, error) { return nil, errors.New("max_tokens") }
	none := func(context.Context, string) ([]string, error) { return []string{}, nil }
	long := "The summary says the cache key ignores the tenant."
	for _, tc := range []struct {
		name      string
		bodies    []string
		extract   Extractor
		want      []string
		extracted bool
	}{
		{"summary and inline comments are extracted together", []string{long, "", "nil map write in Add"}, split,
			[]string{long, "nil map write in Add"}, true},
		{"too short to extract: the raw comments", []string{"nit", "typo"}, split, []string{"nit", "typo"}, false},
		{"extraction failed: the raw comments", []string{long}, fail, []string{long}, false},
		{"extraction found no issue: no candidates", []string{long}, none, []string{}, true},
		{"no comments", nil, split, []string{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ex := Candidates(context.Background(), tc.bodies, tc.extract)
			if d := cmp.Diff(tc.want, got); d != "" || ex != tc.extracted {
				t.Fatalf("extracted %v (want %v), candidates (-want +got):\n%s", ex, tc.extracted, d)
			}
		})
	}
}

// Aggregation: counts are summed over pull requests, never averaged; a
// skipped pull request adds nothing; profiles filter true positives and
// misses by category (the golden comment's own, else the lookup) and keep
// every false positive.
func TestAggregation(t *testing.T) {
	evs := []Evaluation{
		{TP: 1, FP: 0, FN: 0, TruePositives: []TruePositive{{GoldenComment: "g1", Category: "bug"}}},
		{TP: 1, FP: 3, FN: 2, TruePositives: []TruePositive{{GoldenComment: "g2"}},
			FalseNegatives: []FalseNegative{{GoldenComment: "g3", Category: "perf"}, {GoldenComment: "g4"}}},
		{Skipped: true},
	}
	lookup := map[string]string{"g2": "style", "g4": "security"}
	var total Counts
	for _, ev := range evs {
		total.Total(ev)
	}
	if total != (Counts{TP: 2, FP: 3, FN: 2}) {
		t.Fatalf("total %+v", total)
	}
	// Summed, not averaged: PR 1 alone has precision 1, PR 2 0.25; the
	// sum's is 2/5.
	if s := total.Score(); s.Precision != 0.4 || s.Recall != 0.5 {
		t.Fatalf("summed scores %+v", s)
	}
	for _, tc := range []struct {
		profile string
		want    Counts
	}{
		{"strict", Counts{TP: 1, FP: 3, FN: 1}},
		{"core", Counts{TP: 1, FP: 3, FN: 2}},
		{"all", Counts{TP: 2, FP: 3, FN: 2}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			var c Counts
			for _, ev := range evs {
				c.AddProfile(profileNamed(tc.profile), ev, lookup)
			}
			if c != tc.want {
				t.Fatalf("%+v, want %+v", c, tc.want)
			}
		})
	}
	// Without categories (the benchmark's published golden comments), no
	// profile counts a true positive or a miss.
	var c Counts
	c.AddProfile(profileNamed("all"), Evaluation{TP: 1, FP: 1, FN: 1, TruePositives: []TruePositive{{GoldenComment: "x"}},
		FalseNegatives: []FalseNegative{{GoldenComment: "y"}}}, nil)
	if c != (Counts{FP: 1}) {
		t.Fatalf("uncategorised: %+v", c)
	}
}

func profileNamed(n string) Profile {
	for _, p := range Profiles {
		if p.Name == n {
			return p
		}
	}
	panic(n)
}

func TestFBeta(t *testing.T) {
	for _, tc := range []struct {
		name             string
		p, r, beta, want float64
	}{
		{"F1 is the harmonic mean", 0.5, 1, 1, 2.0 / 3},
		{"F2 weighs recall", 0.5, 1, 2, 5 * 0.5 / (4*0.5 + 1)},
		{"F2 of low recall is low", 1, 0.5, 2, 5 * 0.5 / (4 + 0.5)},
		{"undefined is 0", 0, 0, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FBeta(tc.p, tc.r, tc.beta); math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("%v, want %v", got, tc.want)
			}
		})
	}
}
