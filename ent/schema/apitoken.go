package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// APIToken is a bearer token for internal dashboards. Only its hash is stored.
type APIToken struct{ ent.Schema }

// Mixin of the APIToken.
func (APIToken) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the APIToken.
func (APIToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").
			Comment("the owner's label for the token (e.g. the dashboard it serves)"),
		field.String("token_hash").Unique().Sensitive().Annotations(gqlSkipAll()),
		field.String("prefix").Default("").Comment("first characters, to recognise a token"),
		field.Enum("scope").Values("read", "write").Default("read").
			Comment("read: queries and subscriptions only; write: mutations too").
			Annotations(enumDoc{"read": "Queries and subscriptions only.", "write": "Queries, subscriptions and mutations."}),
		field.Time("last_used_at").Optional().Nillable().
			Comment("the last request made with the token; null if never used"),
		field.Time("expires_at").Optional().Nillable().
			Comment("after this the token is refused; null: it does not expire"),
		field.Time("revoked_at").Optional().Nillable().
			Comment("when the token was revoked (refused from then on); null while active"),
		field.Int64("rate_tat").Default(0).Annotations(gqlSkipAll()).
			Comment("the token's request rate limit, shared by every web process: when its next request is due (GCRA theoretical arrival time, unix ns; 0: a full bucket)"),
	}
}

// Edges of the APIToken.
func (APIToken) Edges() []ent.Edge {
	return []ent.Edge{edge.From("owner", User.Type).Ref("api_tokens").Unique().Required().
		Comment("the user the token acts as: it sees what they can see"),
	}
}

// Annotations of the APIToken.
func (APIToken) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("An API token for dashboards and scripts: `Authorization: Bearer chkt_…`, acting as its owner. Stored hashed; the secret is shown once."),
		gqlQueryField("apiTokens"), gqlRelayConnection()}
}
