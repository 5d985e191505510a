package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Installation is one installation of the GitHub App on an account (org or user).
type Installation struct{ ent.Schema }

// Mixin of the Installation.
func (Installation) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Installation.
func (Installation) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("github_id").Unique().Comment("GitHub's installation id"),
		field.String("account_login"),
		field.Int64("account_id").Default(0).Annotations(gqlSkipAll()).
			Comment("GitHub's id of the account the App is installed on: organisations are recognised by it, not by login (a renamed org's login can be taken by someone else); 0 until an installation event or sync records it"),
		field.String("account_type").Default("Organization"),
		field.String("reviewers_repo").Default("").
			Comment("owner/name of the reviewers repository; empty means <account>/chakshu-reviewers"),
		field.Bool("suspended").Default(false),
		field.Time("last_sync_at").Optional().Nillable(),
		field.String("last_sync_commit").Default(""),
		field.Text("last_sync_error").Default(""),
		field.Time("sync_requested_at").Optional().Nillable().
			Comment("a reviewers sync was requested (push, start, on demand) and no worker has claimed it yet"),
	}
}

// Edges of the Installation.
func (Installation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("repositories", Repository.Type),
		edge.To("reviewers", Reviewer.Type),
		edge.To("learnings", ReviewLearning.Type),
		edge.To("credentials", ConnectorCredential.Type).Annotations(gqlSkipAll()),
	}
}

// Annotations of the Installation.
func (Installation) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlQueryField(), gqlRelayConnection()}
}
