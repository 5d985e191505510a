package eval

import (
	"context"
	"strings"
)

// Scoring as the Martian benchmark scores (github.com/withmartian/
// code-review-benchmark, offline/code_review_benchmark/step2_extract_comments.py
// and step3_judge_comments.py; aggregation in offline/analysis/
// benchmark_dashboard.py and score_profiles.py). The rules, carried over as
// facts:
//
//   - A review's comments (inline and summary alike) are joined and a model
//     extracts the distinct issues from them; those issues are the review's
//     candidates. When the joined text is under 20 characters, or the
//     extraction fails, the raw comment bodies are the candidates instead.
//   - A pull request without golden comments is skipped: it adds nothing to
//     any count (its findings are not false positives).
//   - No candidates: every golden comment is a miss.
//   - Otherwise every golden comment is judged against every candidate; a
//     verdict is {reasoning, match, confidence}. Walking the pairs golden by
//     golden, candidate by candidate, a matching verdict whose confidence is
//     above the golden comment's best so far becomes its match, and the
//     candidate counts as matched from then on (even when a later candidate
//     beats it for that golden comment). So one candidate can match several
//     golden comments, and a golden comment keeps its most confident match.
//   - Golden comments and candidates are told apart by their text: two
//     candidates with the same text are one candidate, so a repeat of a
//     matched candidate is not a false positive (nor is a repeat of an
//     unmatched one a second false positive).
//   - A verdict that could not be had (an error, an answer that is not JSON)
//     leaves its pair out and is recorded as an error.
//   - TP are matched golden comments, FN unmatched ones, FP unmatched
//     candidates; precision, recall and F1 come from TP, FP and FN summed
//     over the pull requests.

// Verdict is the judge's answer on one golden comment and one candidate.
type Verdict struct {
	Reasoning  string  `json:"reasoning"`
	Match      bool    `json:"match"`
	Confidence float64 `json:"confidence"`
}

// VerdictJudge judges whether candidate raises the same underlying issue as
// the golden comment.
type VerdictJudge func(ctx context.Context, golden, candidate string) (Verdict, error)

// Extractor lists the distinct issues a review's joined comments raise.
type Extractor func(ctx context.Context, text string) ([]string, error)

// extractSeparator joins a review's comments for extraction, as the
// benchmark joins them.
const extractSeparator = "\n\n---\n\n"

// minExtractChars is the length under which a review's joined comments are
// not sent for extraction (the benchmark's threshold).
const minExtractChars = 20

// Candidates turns a review's comment bodies into the candidates judged:
// the issues extract finds in them, or, when the text is too short or the
// extraction fails, the non-empty bodies themselves. extracted says which.
func Candidates(ctx context.Context, bodies []string, extract Extractor) (cands []string, extracted bool) {
	var nonEmpty []string
	for _, b := range bodies {
		if b != "" {
			nonEmpty = append(nonEmpty, b)
		}
	}
	all := strings.Join(nonEmpty, extractSeparator)
	if extract != nil && len(strings.TrimSpace(all)) >= minExtractChars {
		if issues, err := extract(ctx, all); err == nil {
			out := []string{}
			for _, s := range issues {
				if s != "" {
					out = append(out, s)
				}
			}
			return out, true
		}
	}
	if nonEmpty == nil {
		nonEmpty = []string{}
	}
	return nonEmpty, false
}

// Evaluation is one review of one pull request, scored; its JSON is the
// shape of an entry of the benchmark's results/<judge>/evaluations.json.
type Evaluation struct {
	Skipped         bool            `json:"skipped"`
	Reason          string          `json:"reason,omitempty"`
	TruePositives   []TruePositive  `json:"true_positives,omitempty"`
	FalsePositives  []FalsePositive `json:"false_positives,omitempty"`
	FalseNegatives  []FalseNegative `json:"false_negatives,omitempty"`
	Errors          []PairError     `json:"errors,omitempty"`
	TotalCandidates int             `json:"total_candidates"`
	TotalGolden     int             `json:"total_golden"`
	TP              int             `json:"tp"`
	FP              int             `json:"fp"`
	FN              int             `json:"fn"`
	ErrorsCount     int             `json:"errors_count"`
	Tool            string          `json:"tool,omitempty"`
}

// TruePositive is a matched golden comment.
type TruePositive struct {
	GoldenComment    string  `json:"golden_comment"`
	Severity         string  `json:"severity,omitempty"`
	Category         string  `json:"category,omitempty"`
	MatchedCandidate string  `json:"matched_candidate"`
	Confidence       float64 `json:"confidence"`
	Reasoning        string  `json:"reasoning,omitempty"`
}

// FalseNegative is a golden comment nothing matched.
type FalseNegative struct {
	GoldenComment string `json:"golden_comment"`
	Severity      string `json:"severity,omitempty"`
	Category      string `json:"category,omitempty"`
}

// FalsePositive is a candidate that matched no golden comment.
type FalsePositive struct {
	Candidate string `json:"candidate"`
}

// PairError is a pair the judge gave no verdict on.
type PairError struct {
	Golden    string `json:"golden"`
	Candidate string `json:"candidate"`
	Error     string `json:"error"`
}

// JudgeReview scores one review's candidates against a pull request's golden
// comments with Martian's rules (see the top of this file). Only a cancelled
// ctx is an error; a judge's failure on a pair is recorded in the result.
func JudgeReview(ctx context.Context, golden []Expected, candidates []string, judge VerdictJudge) (Evaluation, error) {
	if len(golden) == 0 {
		return Evaluation{Skipped: true, Reason: "No golden comments"}, nil
	}
	ev := Evaluation{TotalCandidates: len(candidates), TotalGolden: len(golden)}
	type best struct {
		e          Expected
		matched    bool
		confidence float64
		candidate  string
		reasoning  string
	}
	// Golden comments and candidates are keyed by text, in first-seen order.
	var gOrder []string
	byText := map[string]*best{}
	for _, g := range golden {
		if b, ok := byText[g.Comment]; ok {
			b.e = g // a repeat's severity and category win, as a dict's update does
			continue
		}
		gOrder = append(gOrder, g.Comment)
		byText[g.Comment] = &best{e: g}
	}
	var cOrder []string
	candMatched := map[string]bool{}
	for _, c := range candidates {
		if _, ok := candMatched[c]; !ok {
			cOrder = append(cOrder, c)
			candMatched[c] = false
		}
	}
	if len(candidates) > 0 {
		for _, g := range golden {
			for _, c := range candidates {
				v, err := judge(ctx, g.Comment, c)
				if ctx.Err() != nil {
					return Evaluation{}, ctx.Err()
				}
				if err != nil {
					ev.Errors = append(ev.Errors, PairError{Golden: g.Comment, Candidate: c, Error: err.Error()})
					continue
				}
				b := byText[g.Comment]
				if v.Match && v.Confidence > b.confidence {
					b.matched, b.confidence, b.candidate, b.reasoning = true, v.Confidence, c, v.Reasoning
					candMatched[c] = true
				}
			}
		}
	}
	for _, t := range gOrder {
		b := byText[t]
		if b.matched {
			ev.TruePositives = append(ev.TruePositives, TruePositive{GoldenComment: t, Severity: b.e.Severity, Category: b.e.Category,
				MatchedCandidate: b.candidate, Confidence: b.confidence, Reasoning: b.reasoning})
		} else {
			ev.FalseNegatives = append(ev.FalseNegatives, FalseNegative{GoldenComment: t, Severity: b.e.Severity, Category: b.e.Category})
		}
	}
	for _, c := range cOrder {
		if !candMatched[c] {
			ev.FalsePositives = append(ev.FalsePositives, FalsePositive{Candidate: c})
		}
	}
	ev.TP, ev.FP, ev.FN, ev.ErrorsCount = len(ev.TruePositives), len(ev.FalsePositives), len(ev.FalseNegatives), len(ev.Errors)
	return ev, nil
}

// FromMatching is a location matching as an Evaluation, so both ways of
// matching are counted alike. Unlike the judge's scoring, a pull request
// without golden comments is not skipped: the shipped corpus's clean pull
// requests are there to count false positives.
func FromMatching(m Matching, fs []Finding, es []Expected) Evaluation {
	ev := Evaluation{TotalCandidates: len(fs), TotalGolden: len(es)}
	for _, p := range m.Pairs {
		e, f := es[p.Expected], fs[p.Finding]
		ev.TruePositives = append(ev.TruePositives, TruePositive{GoldenComment: e.Comment, Severity: e.Severity, Category: e.Category,
			MatchedCandidate: f.Title, Confidence: 1})
	}
	for _, j := range m.UnmatchedExpected {
		e := es[j]
		ev.FalseNegatives = append(ev.FalseNegatives, FalseNegative{GoldenComment: e.Comment, Severity: e.Severity, Category: e.Category})
	}
	for _, i := range m.UnmatchedFindings {
		ev.FalsePositives = append(ev.FalsePositives, FalsePositive{Candidate: fs[i].Title})
	}
	ev.TP, ev.FP, ev.FN = len(ev.TruePositives), len(ev.FalsePositives), len(ev.FalseNegatives)
	return ev
}

// Total adds an evaluation's counts with no category filter, as the
// benchmark's dashboard does (a skipped one adds nothing).
func (c *Counts) Total(ev Evaluation) {
	c.TP += ev.TP
	c.FP += ev.FP
	c.FN += ev.FN
}

// AddProfile adds an evaluation's counts under profile p, as score_profiles.py
// does: a true positive or a miss counts only when its golden comment's
// category (its own, else categories[comment]) is in the profile; every false
// positive counts; a skipped evaluation adds nothing.
func (c *Counts) AddProfile(p Profile, ev Evaluation, categories map[string]string) {
	if ev.Skipped {
		return
	}
	cat := func(own, comment string) string {
		if own != "" {
			return own
		}
		return categories[comment]
	}
	for _, t := range ev.TruePositives {
		if p.Has(cat(t.Category, t.GoldenComment)) {
			c.TP++
		}
	}
	for _, f := range ev.FalseNegatives {
		if p.Has(cat(f.Category, f.GoldenComment)) {
			c.FN++
		}
	}
	c.FP += ev.FP
}

// FBeta is the F-beta score of precision and recall (0 where undefined), as
// score_profiles.py computes it; beta 2 weighs recall above precision.
func FBeta(precision, recall, beta float64) float64 {
	b2 := beta * beta
	d := b2*precision + recall
	if d <= 0 {
		return 0
	}
	return (1 + b2) * precision * recall / d
}
