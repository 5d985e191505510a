package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// User is a person who signed in to the portal with GitHub.
type User struct{ ent.Schema }

// Mixin of the User.
func (User) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("github_id").Unique().
			Comment("GitHub's user id"),
		field.String("login").Unique().
			Comment("GitHub login"),
		field.String("name").Default("").
			Comment("display name from GitHub"),
		field.String("avatar_url").Default("").
			Comment("avatar image URL from GitHub"),
		field.Bool("is_admin").Default(false).
			Comment("a Chakshu admin (CHAKSHU_ADMINS); admin rights from owning an organisation cover that installation only"),
		field.Time("last_login_at").Optional().Nillable().
			Comment("last portal sign-in"),
		field.JSON("repo_access", []int64{}).Optional().Annotations(gqlSkipAll()).
			Comment("GitHub ids of repositories the user can read, cached"),
		field.Time("repo_access_refreshed_at").Optional().Nillable().Annotations(gqlSkipAll()),
		field.JSON("admin_installations", []int{}).Optional().Annotations(gqlSkipAll()).
			Comment("ids of the installations on organisations the user owns (admin there only), cached with repo_access"),
		field.Bytes("github_token_sealed").Optional().Sensitive().Annotations(gqlSkipAll()).
			Comment("the user's GitHub token from their last login, sealed (AES-GCM under CHAKSHU_SECRET_KEY): API tokens refresh their owner's access with it"),
		field.Time("signed_out_at").Optional().Nillable().Annotations(gqlSkipAll()).
			Comment("last portal sign-out: every session issued before it has ended (cookies are not stored, so this is how a sign-out reaches open WebSockets)"),
	}
}

// Edges of the User.
func (User) Edges() []ent.Edge {
	return []ent.Edge{edge.To("api_tokens", APIToken.Type).
		Comment("the user's API tokens"),
	}
}

// Annotations of the User.
func (User) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A person who signed in to the portal with GitHub."),
	}
}
