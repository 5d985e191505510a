package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// ConnectorCredential is a secret a connector uses, encrypted with CHAKSHU_SECRET_KEY (AES-GCM).
type ConnectorCredential struct{ ent.Schema }

// Mixin of the ConnectorCredential.
func (ConnectorCredential) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ConnectorCredential.
func (ConnectorCredential) Fields() []ent.Field {
	return []ent.Field{
		field.String("connector").Comment("connector name, e.g. http"),
		field.String("name").Comment("credential name the reviewer.yaml refers to"),
		field.Bytes("ciphertext").Sensitive(),
		field.String("created_by").Default("").
			Comment("login of the admin who stored it"),
		field.Strings("hosts").Optional().
			Comment("hosts (name or name:port, lower case) the http connector may send it to; empty refuses every call (issue 19 item 5)"),
	}
}

// Edges of the ConnectorCredential.
func (ConnectorCredential) Edges() []ent.Edge {
	return []ent.Edge{edge.From("installation", Installation.Type).Ref("credentials").Unique().Required().
		Comment("the installation whose reviewers may use it"),
	}
}

// Indexes of the ConnectorCredential.
func (ConnectorCredential) Indexes() []ent.Index {
	return []ent.Index{index.Fields("connector", "name").Edges("installation").Unique()}
}

// Annotations of the ConnectorCredential.
func (ConnectorCredential) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlSkipAll()}
}
