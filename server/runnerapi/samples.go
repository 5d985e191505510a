package runnerapi

import (
	"fmt"
	"math"

	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/reviewerconfig"
)

// maxSamplePasses bounds the figures a runner may report for a review of
// several passes (reviewer.yaml allows 5; a little room for a later limit).
const maxSamplePasses = 10

// samplesRecord is the runner's figures of a review in several passes as
// stored with the result (Coverage.Samples, GraphQL Run.checked.samples),
// or nil when the run had one pass or the figures do not add up.
func samplesRecord(s *findings.Samples) *findings.Samples {
	if s == nil || s.Passes < 2 || s.Passes > maxSamplePasses || s.Ran < 1 || s.Ran > s.Passes ||
		s.Agree < 1 || s.Agree > s.Ran || len(s.PassFindings) != s.Ran ||
		s.Kept < 0 || s.Dropped < 0 || s.Kept+s.Dropped != s.Distinct ||
		(s.AgreeAsked != 0 && (s.AgreeAsked <= s.Ran || s.AgreeAsked > s.Passes || s.Agree != s.Ran)) ||
		(len(s.Lenses) != 0 && len(s.Lenses) != s.Ran) {
		return nil
	}
	for _, l := range s.Lenses {
		if l == "" || len(l) > reviewerconfig.MaxLensBytes {
			return nil
		}
	}
	for _, n := range s.PassFindings {
		if n < 0 {
			return nil
		}
	}
	return s
}

// samplesMessage is the timeline entry of a result from several passes.
func samplesMessage(s *findings.Samples) string {
	if s.AgreeAsked > 0 {
		return fmt.Sprintf("The runner reported its result: %d of %d passes ran, so agree %d could not be met; kept the findings at least %d of them reported (%d), dropped those fewer reported (%d).",
			s.Ran, s.Passes, s.AgreeAsked, s.Agree, s.Kept, s.Dropped)
	}
	return fmt.Sprintf("The runner reported its result: %d of %d passes ran; kept the findings at least %d of them reported (%d), dropped those fewer reported (%d).",
		s.Ran, s.Passes, s.Agree, s.Kept, s.Dropped)
}

// verifyRecord is the runner's figures of its verification step as stored
// with the result (Coverage.Verify, GraphQL Run.checked.verify), or nil
// when there were none or they do not add up.
func verifyRecord(v *findings.Verification) *findings.Verification {
	if v == nil || v.Candidates < 0 || v.Confirmed < 0 || v.Refuted < 0 || v.Unverified < 0 ||
		v.Confirmed+v.Refuted+v.Unverified != v.Candidates || v.MinConfidence < 0 || v.MinConfidence > 10 ||
		v.Calls < 0 || v.Turns < 0 || v.CostUSD < 0 || math.IsNaN(v.CostUSD) || math.IsInf(v.CostUSD, 0) {
		return nil
	}
	return v
}

// verifyMessage is the timeline's sentence on a verification step.
func verifyMessage(v *findings.Verification) string {
	return fmt.Sprintf(" Verification: %d of %d candidates refuted, %d confirmed, %d unverified (minimum confidence %d; %d calls, est. $%.4f).",
		v.Refuted, v.Candidates, v.Confirmed, v.Unverified, v.MinConfidence, v.Calls, v.CostUSD)
}
