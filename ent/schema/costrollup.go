package schema

import (
	"fmt"

	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// CostRollupBuckets is the number of duration histogram columns (h00…) of a
// CostRollup; internal/store defines their bounds.
const CostRollupBuckets = 48

// CostRollup holds the figures of the runs created in one UTC day, week
// (from Monday) or month, of one repository by one reviewer: what the cost
// aggregates read instead of the runs. It is maintained by database triggers on
// runs (internal/store/rollup.go), in the transaction of every write to a run,
// so it always equals an aggregation of the runs table.
type CostRollup struct{ ent.Schema }

// Fields of the CostRollup.
func (CostRollup) Fields() []ent.Field {
	fs := []ent.Field{
		field.String("grain").Comment("d (day), w (week from Monday) or m (month), then the level: \"\" per repository and reviewer, r per repository, v per reviewer, t over everything"),
		field.String("day").Comment("first day of the period, YYYY-MM-DD"),
		field.Int("repository_id"),
		field.Int("reviewer_id"),
		field.Int64("runs").Default(0),
		field.Int64("succeeded").Default(0),
		field.Int64("failed").Default(0),
		field.Int64("cancelled").Default(0),
		field.Float("cost_usd").Default(0),
		field.Int64("input_tokens").Default(0),
		field.Int64("output_tokens").Default(0),
		field.Int64("cache_read_tokens").Default(0),
		field.Int64("cache_write_tokens").Default(0),
		field.Int64("findings_blocker").Default(0),
		field.Int64("findings_major").Default(0),
		field.Int64("findings_minor").Default(0),
		field.Int64("findings_nit").Default(0),
	}
	for i := 0; i < CostRollupBuckets; i++ {
		fs = append(fs, field.Int64(fmt.Sprintf("h%02d", i)).Default(0))
	}
	return fs
}

// Indexes of the CostRollup.
func (CostRollup) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("grain", "day", "repository_id", "reviewer_id").Unique(),
	}
}

// Annotations of the CostRollup.
func (CostRollup) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlSkipAll()}
}
