package runstate

import (
	"errors"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
)

// ErrNoResult means the run holds no result (it never reported one).
var ErrNoResult = errors.New("run has no result")

// Result is run r's result as the runner API stored it: parsed, validated
// and redacted when it was reported, read here without parsing again.
//
// A run reported before the typed result column, or by a schema-2 web
// process beside this release in a rolling deploy, has only the legacy
// result_json and checked columns: its result is read from them (the JSON
// was validated and redacted when it was stored; parsing it again fills the
// defaults schema 2 left to the reader). That fallback goes once no binary
// of schema 2 writes runs (docs/production.md, Upgrades and rollback).
func Result(r *ent.Run) (*findings.Stored, error) {
	if r.Result != nil {
		return r.Result, nil
	}
	if r.ResultJSON == "" {
		return nil, ErrNoResult
	}
	if r.Kind == run.KindReply {
		rr, err := findings.ParseReply([]byte(r.ResultJSON))
		if err != nil {
			return nil, fmt.Errorf("stored reply: %w", err)
		}
		return &findings.Stored{Reply: rr}, nil
	}
	res, err := findings.ParseResult([]byte(r.ResultJSON))
	if err != nil {
		return nil, fmt.Errorf("stored result: %w", err)
	}
	cov, err := findings.CoverageFromMap(r.Checked)
	if err != nil {
		return nil, fmt.Errorf("stored result: %w", err)
	}
	return &findings.Stored{Review: res, Checked: cov}, nil
}

// Checked is what run r looked at as GraphQL's Run.checked map: from its
// stored result, or, for a run stored before it, the legacy checked column
// as it is (nil for reply runs and runs without a result).
func Checked(r *ent.Run) map[string]any {
	if r.Result != nil {
		return r.Result.Checked.Map()
	}
	return r.Checked
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
