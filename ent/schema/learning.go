package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// ReviewLearning is a directive for future reviews, from a reply or the portal.
type ReviewLearning struct{ ent.Schema }

// Mixin of the ReviewLearning.
func (ReviewLearning) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ReviewLearning.
func (ReviewLearning) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("scope").Values("repo", "installation").Default("repo"),
		field.String("glob").Default("").MaxLen(256).Comment("file glob; empty matches every file"),
		field.Text("directive").MaxLen(2000),
		field.String("dedupe_key").Unique().Annotations(gqlSkipAll()).
			Comment("hash of scope, installation, repository, glob and directive"),
		field.String("author").Default(""),
		field.Int("pr_number").Default(0),
		field.Int64("comment_id").Default(0),
		field.String("source").Default("portal").Comment("reply or portal"),
		field.Int("use_count").Default(0),
		field.Time("last_used_at").Optional().Nillable().Annotations(gqlOrderField("LAST_USED_AT")),
		field.Bool("enabled").Default(true),
	}
}

// Edges of the ReviewLearning.
func (ReviewLearning) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("installation", Installation.Type).Ref("learnings").Unique().Required(),
		edge.From("repository", Repository.Type).Ref("learnings").Unique(),
	}
}

// Annotations of the ReviewLearning.
func (ReviewLearning) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlQueryField(), gqlRelayConnection()}
}
