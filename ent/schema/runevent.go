package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// RunEvent is one entry of a run's timeline: a status change or a notable step.
type RunEvent struct{ ent.Schema }

// Fields of the RunEvent.
func (RunEvent) Fields() []ent.Field {
	return []ent.Field{
		field.Time("at").Default(time.Now).Immutable().
			Comment("when it happened"),
		field.String("from_status").Default("").
			Comment("status before (empty for a note that changes none)"),
		field.String("to_status").Default("").
			Comment("status after (empty for a note that changes none)"),
		field.String("message").Default("").Comment("safe sentence"),
		field.Text("detail").Default("").Comment("operator detail, redacted").
			Annotations(gqlSkipWhereInput()),
	}
}

// Edges of the RunEvent.
func (RunEvent) Edges() []ent.Edge {
	return []ent.Edge{edge.From("run", Run.Type).Ref("events").Unique().Required().
		Comment("the run it belongs to"),
	}
}

// Indexes of the RunEvent.
func (RunEvent) Indexes() []ent.Index {
	return []ent.Index{index.Fields("at").Edges("run")}
}

// Annotations of the RunEvent.
func (RunEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A step in a run's timeline: a status change or a note."),
	}
}
