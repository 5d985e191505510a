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
		field.String("name"),
		field.String("token_hash").Unique().Sensitive().Annotations(gqlSkipAll()),
		field.String("prefix").Default("").Comment("first characters, to recognise a token"),
		field.Enum("scope").Values("read", "write").Default("read"),
		field.Time("last_used_at").Optional().Nillable(),
		field.Time("expires_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
	}
}

// Edges of the APIToken.
func (APIToken) Edges() []ent.Edge {
	return []ent.Edge{edge.From("owner", User.Type).Ref("api_tokens").Unique().Required()}
}

// Annotations of the APIToken.
func (APIToken) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlQueryField("apiTokens"), gqlRelayConnection()}
}
