package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Finding is one finding an agent reported in a run, posted or dropped.
type Finding struct{ ent.Schema }

// Mixin of the Finding.
func (Finding) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Finding.
func (Finding) Fields() []ent.Field {
	return []ent.Field{
		field.String("hidden_id").Comment("hash of path, category and normalised title"),
		field.String("path"),
		field.Int("line").Default(0),
		field.Int("start_line").Default(0),
		field.String("side").Default("RIGHT"),
		field.Enum("severity").Values("blocker", "major", "minor", "nit").Annotations(gqlOrderField("SEVERITY")),
		field.String("category").Default(""),
		field.String("title"),
		field.Text("body").Default(""),
		field.Text("suggestion").Default(""),
		field.Bool("posted").Default(false),
		field.Enum("placement").Values("inline", "body", "none").Default("none"),
		field.String("dropped_reason").Default("").Comment("why it was not posted: below min_severity, over max_findings, already on the PR"),
		field.Int64("comment_id").Default(0),
		field.String("comment_url").Default(""),
		field.String("thread_id").Default("").Comment("GraphQL node id of the review thread"),
		field.Bool("resolved").Default(false),
	}
}

// Edges of the Finding.
func (Finding) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("run", Run.Type).Ref("findings").Unique().Required(),
	}
}

// Indexes of the Finding.
func (Finding) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("hidden_id"),
		index.Fields("comment_id"),
	}
}

// Annotations of the Finding.
func (Finding) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlQueryField(), gqlRelayConnection()}
}
