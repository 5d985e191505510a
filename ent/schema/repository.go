package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Repository is a repository the App is installed on.
type Repository struct{ ent.Schema }

// Mixin of the Repository.
func (Repository) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Repository.
func (Repository) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("github_id").Unique(),
		field.String("owner"),
		field.String("name"),
		field.String("full_name").Annotations(gqlOrderField("FULL_NAME")),
		field.String("default_branch").Default("main"),
		field.Bool("private").Default(false),
		field.Bool("removed").Default(false).Comment("the installation no longer covers this repository"),
	}
}

// Edges of the Repository.
func (Repository) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("installation", Installation.Type).Ref("repositories").Unique().Required(),
		edge.To("runs", Run.Type).Annotations(gqlRelayConnection()),
		edge.To("learnings", ReviewLearning.Type),
	}
}

// Annotations of the Repository.
func (Repository) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlQueryField(), gqlRelayConnection()}
}
