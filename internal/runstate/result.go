package runstate

import (
	"errors"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/internal/findings"
)

// ErrNoResult means the run holds no result (it never reported one).
var ErrNoResult = errors.New("run has no result")

// Result is run r's result as the runner API stored it: parsed, validated
// and redacted when it was reported, read here without parsing again. (A
// run reported by schema 2, before the typed result, got it when the
// database was migrated to schema 4 or later.)
func Result(r *ent.Run) (*findings.Stored, error) {
	if r.Result == nil {
		return nil, ErrNoResult
	}
	return r.Result, nil
}

// Checked is what run r looked at, GraphQL's Run.checked (nil for reply
// runs and runs without a result).
func Checked(r *ent.Run) *findings.Coverage {
	if r.Result == nil {
		return nil
	}
	return r.Result.Checked
}

// Finding is a stored finding row as the finding it was (the rows of every
// run's findings, for comparing them by findings.Same).
func Finding(f *ent.Finding) findings.Finding {
	out := findings.Finding{Path: f.Path, Line: f.Line, StartLine: f.StartLine, Side: f.Side,
		Severity: findings.Severity(f.Severity), Category: f.Category, Title: f.Title, Body: f.Body,
		Evidence: f.Evidence, EvidenceMovedFrom: f.EvidenceMovedFrom}
	if f.Suggestion != "" {
		out.Suggestion = &f.Suggestion
	}
	return out
}
