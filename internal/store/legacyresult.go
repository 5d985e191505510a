package store

import (
	"context"
	"fmt"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/run"
	"github.com/chakshu-dev/chakshu/internal/findings"
)

// backfillResults gives each run reported before the typed result column
// (schema 2 wrote only result_json and checked) its typed result, converted
// from those columns, so that from schema 4 on nothing reads or writes them
// (docs/production.md, Upgrades and rollback; the release after drops them).
// A run whose legacy result does not parse keeps none: publishing fails it
// as unreadable, as it did. Idempotent; runs in batches.
func (db *DB) backfillResults(ctx context.Context) error {
	last := 0
	for {
		rs, err := db.Run.Query().Where(run.ResultIsNil(), run.ResultJSONNEQ(""), run.IDGT(last)).
			Order(ent.Asc(run.FieldID)).Limit(200).All(ctx)
		if err != nil {
			return fmt.Errorf("migrate: legacy results: %w", err)
		}
		if len(rs) == 0 {
			return nil
		}
		for _, r := range rs {
			last = r.ID
			st, err := legacyResult(r)
			if err != nil {
				continue
			}
			// updated_at kept: the run did not change, its column did.
			if err := db.Run.UpdateOneID(r.ID).SetResult(st).SetUpdatedAt(r.UpdatedAt).Exec(ctx); err != nil {
				return fmt.Errorf("migrate: legacy result of run %d: %w", r.ID, err)
			}
		}
	}
}

// legacyResult reads r's result from its legacy columns, as schema 2 stored
// it (the JSON was validated and redacted then; parsing it again fills the
// defaults schema 2 left to the reader).
func legacyResult(r *ent.Run) (*findings.Stored, error) {
	if r.Kind == run.KindReply {
		rr, err := findings.ParseReply([]byte(r.ResultJSON))
		if err != nil {
			return nil, err
		}
		return &findings.Stored{Reply: rr}, nil
	}
	res, err := findings.ParseResult([]byte(r.ResultJSON))
	if err != nil {
		return nil, err
	}
	cov, err := findings.CoverageFromMap(r.Checked)
	if err != nil {
		return nil, err
	}
	return &findings.Stored{Review: res, Checked: cov}, nil
}
