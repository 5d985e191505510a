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
		field.Int64("github_id").Unique().
			Comment("GitHub's repository id"),
		field.String("owner").
			Comment("owner login"),
		field.String("name").
			Comment("repository name without the owner"),
		field.String("full_name").Annotations(gqlOrderField("FULL_NAME")).
			Comment("owner/name"),
		field.String("default_branch").Default("main").
			Comment("the branch chakshu.yml and the review workflow are read from"),
		field.Bool("private").Default(false).
			Comment("private or internal on GitHub"),
		field.Bool("removed").Default(false).Comment("the installation no longer covers this repository"),
		field.Float("budget_daily_usd").Default(0).Annotations(gqlSkipAll()).
			Comment("spend allowed per UTC day over the repository's runs, in USD; 0: no daily budget"),
		field.Float("budget_monthly_usd").Default(0).Annotations(gqlSkipAll()).
			Comment("spend allowed per UTC calendar month over the repository's runs, in USD; 0: no monthly budget"),
	}
}

// Edges of the Repository.
func (Repository) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("installation", Installation.Type).Ref("repositories").Unique().Required().
			Comment("the installation that covers it"),
		edge.To("runs", Run.Type).Annotations(gqlRelayConnection()).
			Comment("review and reply runs on its pull requests"),
		edge.To("learnings", ReviewLearning.Type).
			Comment("learnings scoped to this repository"),
	}
}

// Annotations of the Repository.
func (Repository) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A GitHub repository the App is installed on."),
		gqlQueryField(), gqlRelayConnection()}
}
