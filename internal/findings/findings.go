// Package findings defines the result an agent reports (DESIGN §5): its JSON
// shape, strict validation, severities and the hidden ID that makes
// publishing idempotent.
package findings

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chakshu-dev/chakshu/internal/strictjson"
)

// Severity of a finding, from most to least severe.
type Severity string

// Severities.
const (
	Blocker Severity = "blocker"
	Major   Severity = "major"
	Minor   Severity = "minor"
	Nit     Severity = "nit"
)

// Severities lists every severity, most severe first.
var Severities = []Severity{Blocker, Major, Minor, Nit}

// Rank is 0 for blocker … 3 for nit; -1 for an unknown severity.
func (s Severity) Rank() int {
	for i, v := range Severities {
		if v == s {
			return i
		}
	}
	return -1
}

// AtLeast reports whether s is as severe as min or more.
func (s Severity) AtLeast(min Severity) bool { return s.Rank() >= 0 && s.Rank() <= min.Rank() }

// Valid reports whether s is a known severity.
func (s Severity) Valid() bool { return s.Rank() >= 0 }

// Finding is one finding as the agent reports it.
type Finding struct {
	Path       string   `json:"path"`
	Line       int      `json:"line"`
	StartLine  int      `json:"start_line,omitempty"`
	Side       string   `json:"side,omitempty"` // RIGHT (default) or LEFT
	Severity   Severity `json:"severity"`
	Category   string   `json:"category"`
	Title      string   `json:"title"`
	Body       string   `json:"body"`
	Suggestion *string  `json:"suggestion,omitempty"` // replacement text for lines start_line..line
	// Evidence is the code the finding rests on: exact text (one or a few
	// lines) from the file at the head commit (the base commit for side
	// LEFT). Results of runners of protocol 2 and later carry it on every
	// finding (RequireEvidence); older runners' findings may lack it.
	Evidence string `json:"evidence,omitempty"`
	// Scenario is the finding's failing scenario: the input or state and the
	// wrong outcome (issue 41's precision-first prompt asks for it). Results
	// from before the field lack it.
	Scenario string `json:"scenario,omitempty"`
	// Confidence is the reporter's confidence, 1 to 10, that the finding is
	// real; 0 means not given (results from before the field).
	Confidence int `json:"confidence,omitempty"`
	// EvidenceMovedFrom is set by an evidence check, never by the agent:
	// the line the agent named when its quote was found on nearby lines
	// instead and the finding was moved there (CheckEvidence).
	EvidenceMovedFrom int `json:"evidence_moved_from,omitempty"`
}

// Checked says what the agent looked at.
type Checked struct {
	Files  []string `json:"files"`
	Skills []string `json:"skills"`
}

// Result is what a review run reports.
type Result struct {
	Summary  string    `json:"summary"`
	Checked  Checked   `json:"checked"`
	Findings []Finding `json:"findings"`
}

// Verdict of a reply run on the finding it answers.
type Verdict string

// Verdicts.
const (
	VerdictStands Verdict = "stands"
	VerdictWrong  Verdict = "wrong"
	VerdictFixed  Verdict = "fixed"
)

// ReplyResult is what a reply run reports.
type ReplyResult struct {
	Reply   string  `json:"reply"`
	Verdict Verdict `json:"verdict"`
}

// Limits on what an agent may report; longer text is refused, not cut, so the
// agent (or its author) sees why.
const (
	MaxFindings      = 200
	MaxSummaryBytes  = 20_000
	MaxTitleBytes    = 300
	MaxBodyBytes     = 10_000
	MaxSuggestion    = 20_000
	MaxPathBytes     = 1_000
	MaxCategoryBytes = 64
	MaxScenarioBytes = 2_000
	MaxConfidence    = 10
	MaxReplyBytes    = 5_000
	MaxResultBytes   = 2 << 20
)

// ParseResult decodes and validates a review result. Any unknown field, wrong
// type or bad value is an error naming it; nothing is partially accepted.
func ParseResult(b []byte) (*Result, error) {
	if len(b) > MaxResultBytes {
		return nil, fmt.Errorf("result is %d bytes; the limit is %d", len(b), MaxResultBytes)
	}
	var r Result
	if err := strictDecode(b, &r); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// ParseReply decodes and validates a reply result.
func ParseReply(b []byte) (*ReplyResult, error) {
	var r ReplyResult
	if err := strictDecode(b, &r); err != nil {
		return nil, err
	}
	if strings.TrimSpace(r.Reply) == "" {
		return nil, errors.New("reply: must not be empty")
	}
	if len(r.Reply) > MaxReplyBytes || !utf8.ValidString(r.Reply) {
		return nil, fmt.Errorf("reply: must be valid UTF-8 of at most %d bytes", MaxReplyBytes)
	}
	switch r.Verdict {
	case VerdictStands, VerdictWrong, VerdictFixed:
	default:
		return nil, fmt.Errorf("verdict: want stands, wrong or fixed, got %q", r.Verdict)
	}
	return &r, nil
}

func strictDecode(b []byte, v any) error {
	if !utf8.Valid(b) {
		return errors.New("result is not valid UTF-8")
	}
	if err := strictjson.Decode(b, v); errors.Is(err, strictjson.ErrTrailing) {
		return errors.New("result has data after the JSON object")
	} else if err != nil {
		return fmt.Errorf("result is not valid JSON of the expected shape: %v", err)
	}
	return nil
}

// Validate checks every field of r.
func (r *Result) Validate() error {
	if len(r.Summary) > MaxSummaryBytes {
		return fmt.Errorf("summary: at most %d bytes", MaxSummaryBytes)
	}
	if len(r.Findings) > MaxFindings {
		return fmt.Errorf("findings: at most %d, got %d", MaxFindings, len(r.Findings))
	}
	for i := range r.Findings {
		if err := r.Findings[i].Validate(); err != nil {
			return fmt.Errorf("findings[%d]: %w", i, err)
		}
	}
	return nil
}

// Validate checks one finding and fills defaults (side RIGHT).
func (f *Finding) Validate() error {
	switch {
	case f.Path == "" || len(f.Path) > MaxPathBytes:
		return fmt.Errorf("path: required, at most %d bytes", MaxPathBytes)
	case strings.HasPrefix(f.Path, "/") || strings.Contains(f.Path, "\x00") || strings.Contains(f.Path, "\\"):
		return errors.New("path: must be relative to the repository root")
	case hasDotDot(f.Path):
		return errors.New("path: must not contain ..")
	case f.Line < 1:
		return errors.New("line: must be 1 or more")
	case f.StartLine < 0 || (f.StartLine > 0 && f.StartLine > f.Line):
		return errors.New("start_line: must be between 1 and line")
	case !f.Severity.Valid():
		return fmt.Errorf("severity: want blocker, major, minor or nit, got %q", f.Severity)
	case strings.TrimSpace(f.Title) == "" || len(f.Title) > MaxTitleBytes:
		return fmt.Errorf("title: required, at most %d bytes", MaxTitleBytes)
	case strings.ContainsAny(f.Title, "\r\n"):
		return errors.New("title: must be one line")
	case len(f.Category) > MaxCategoryBytes:
		return fmt.Errorf("category: at most %d bytes", MaxCategoryBytes)
	case len(f.Body) > MaxBodyBytes:
		return fmt.Errorf("body: at most %d bytes", MaxBodyBytes)
	case f.Suggestion != nil && len(*f.Suggestion) > MaxSuggestion:
		return fmt.Errorf("suggestion: at most %d bytes", MaxSuggestion)
	case f.EvidenceMovedFrom < 0:
		return errors.New("evidence_moved_from: must be 0 or a line")
	case len(f.Scenario) > MaxScenarioBytes:
		return fmt.Errorf("scenario: at most %d bytes", MaxScenarioBytes)
	case f.Confidence < 0 || f.Confidence > MaxConfidence:
		return fmt.Errorf("confidence: want 0 to %d, got %d", MaxConfidence, f.Confidence)
	}
	if f.Evidence != "" {
		if err := validEvidence(f.Evidence); err != nil {
			return fmt.Errorf("evidence: %w", err)
		}
	}
	switch f.Side {
	case "":
		f.Side = "RIGHT"
	case "RIGHT", "LEFT":
	default:
		return fmt.Errorf("side: want RIGHT or LEFT, got %q", f.Side)
	}
	if f.StartLine == f.Line {
		f.StartLine = 0
	}
	return nil
}

func hasDotDot(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// HiddenID is the finding's identity across runs: a hash of its path, category
// and normalised title. Rewording the body or moving lines does not change it.
func HiddenID(path, category, title string) string {
	h := sha256.New()
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write([]byte(strings.ToLower(strings.TrimSpace(category))))
	h.Write([]byte{0})
	h.Write([]byte(NormaliseTitle(title)))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ID returns f's hidden ID.
func (f *Finding) ID() string { return HiddenID(f.Path, f.Category, f.Title) }

// NormaliseTitle lower-cases, drops punctuation and folds white space, so
// "Unchecked error!" and "unchecked  error" are the same finding.
func NormaliseTitle(t string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(t) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		default:
			space = true
		}
	}
	return b.String()
}
