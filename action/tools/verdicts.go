package tools

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chakshu-dev/chakshu/internal/strictjson"
)

// NameSubmitVerdicts is the submit tool of a verification conversation
// (Config.Kind "verify"): the verifier's verdict on each candidate finding.
const NameSubmitVerdicts = "submit_verdicts"

// Verdict values.
const (
	VerdictConfirmed = "confirmed"
	VerdictRefuted   = "refuted"
)

// Verdict is the verifier's answer on one candidate finding.
type Verdict struct {
	// Candidate is the candidate's number as the prompt listed it (1-based).
	Candidate int    `json:"candidate"`
	Verdict   string `json:"verdict"`
	// Confidence, 0 to 10, that the finding is a real problem.
	Confidence int `json:"confidence"`
	// Scenario is the concrete failing scenario (input or state, wrong
	// outcome) for a confirmed finding, or why the finding is wrong.
	Scenario string `json:"scenario"`
	// Quote is the code the scenario runs through, copied from the file.
	Quote string `json:"quote,omitempty"`
}

// Verdicts is a verification conversation's result.
type Verdicts struct {
	Verdicts []Verdict `json:"verdicts"`
}

// Limits of a verdict.
const (
	MaxVerdicts       = 200
	MaxVerdictText    = 4000
	MaxVerdictConfide = 10
)

// ParseVerdicts decodes and validates a verification result strictly.
func ParseVerdicts(b []byte) (*Verdicts, error) {
	if !utf8.Valid(b) {
		return nil, errors.New("result is not valid UTF-8")
	}
	var v Verdicts
	if err := strictjson.Decode(b, &v); err != nil {
		return nil, fmt.Errorf("result is not valid JSON of the expected shape: %v", err)
	}
	if len(v.Verdicts) > MaxVerdicts {
		return nil, fmt.Errorf("verdicts: at most %d", MaxVerdicts)
	}
	seen := map[int]bool{}
	for i, x := range v.Verdicts {
		switch {
		case x.Candidate < 1:
			return nil, fmt.Errorf("verdicts[%d].candidate: must be 1 or more", i)
		case seen[x.Candidate]:
			return nil, fmt.Errorf("verdicts[%d].candidate: %d has a verdict already", i, x.Candidate)
		case x.Verdict != VerdictConfirmed && x.Verdict != VerdictRefuted:
			return nil, fmt.Errorf("verdicts[%d].verdict: want confirmed or refuted, got %q", i, x.Verdict)
		case x.Confidence < 0 || x.Confidence > MaxVerdictConfide:
			return nil, fmt.Errorf("verdicts[%d].confidence: want 0 to %d", i, MaxVerdictConfide)
		case x.Verdict == VerdictConfirmed && strings.TrimSpace(x.Scenario) == "":
			return nil, fmt.Errorf("verdicts[%d].scenario: a confirmed finding needs its failing scenario", i)
		case len(x.Scenario) > MaxVerdictText || len(x.Quote) > MaxVerdictText:
			return nil, fmt.Errorf("verdicts[%d]: scenario and quote at most %d bytes each", i, MaxVerdictText)
		}
		seen[x.Candidate] = true
	}
	return &v, nil
}

const verdictsSchema = `{"type":"object","properties":{
"verdicts":{"type":"array","items":{"type":"object","properties":{
  "candidate":{"type":"integer","minimum":1,"description":"The candidate's number as listed."},
  "verdict":{"type":"string","enum":["confirmed","refuted"],"description":"refuted unless you can show the failure."},
  "confidence":{"type":"integer","minimum":0,"maximum":10,"description":"How sure you are, 0 to 10, that the finding is a real problem a maintainer would fix."},
  "scenario":{"type":"string","description":"Confirmed: the concrete input or state and the wrong outcome. Refuted: what makes the finding wrong."},
  "quote":{"type":"string","description":"The code the scenario runs through, copied exactly from the file."}},
  "required":["candidate","verdict","confidence","scenario"],"additionalProperties":false}}},
"required":["verdicts"],"additionalProperties":false}`
