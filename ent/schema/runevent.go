package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// RunEvent is one entry of a run's timeline: a status change or a notable step.
type RunEvent struct{ ent.Schema }

// Fields of the RunEvent.
func (RunEvent) Fields() []ent.Field {
	return []ent.Field{
		field.Time("at").Default(time.Now).Immutable(),
		field.String("from_status").Default(""),
		field.String("to_status").Default(""),
		field.String("message").Default("").Comment("safe sentence"),
		field.Text("detail").Default("").Comment("operator detail, redacted").
			Annotations(gqlSkipWhereInput()),
	}
}

// Edges of the RunEvent.
func (RunEvent) Edges() []ent.Edge {
	return []ent.Edge{edge.From("run", Run.Type).Ref("events").Unique().Required()}
}

// Indexes of the RunEvent.
func (RunEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("at").Edges("run")}
}
