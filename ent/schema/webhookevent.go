package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// WebhookEvent is one stored webhook delivery; web stores, the worker handles.
type WebhookEvent struct{ ent.Schema }

// Fields of the WebhookEvent.
func (WebhookEvent) Fields() []ent.Field {
	return []ent.Field{
		field.String("delivery_id").Unique().NotEmpty(),
		field.String("event").Annotations(gqlOrderField("EVENT")),
		field.String("action").Default(""),
		field.Int64("installation_id").Default(0),
		field.String("repository").Default(""),
		field.Bytes("payload").Annotations(gqlSkipAll()),
		field.Enum("status").Values("pending", "processing", "done", "failed").Default("pending").
			Annotations(gqlOrderField("STATUS")),
		field.Int("attempts").Default(0),
		field.Text("last_error").Default("").Comment("redacted").Annotations(gqlSkipWhereInput()),
		field.String("lease_owner").Default(""),
		field.Time("heartbeat_at").Optional().Nillable(),
		field.Time("next_attempt_at").Optional().Nillable(),
		field.Time("received_at").Default(time.Now).Immutable().Annotations(gqlOrderField("RECEIVED_AT")),
		field.Time("handled_at").Optional().Nillable(),
	}
}

// Indexes of the WebhookEvent.
func (WebhookEvent) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("status", "next_attempt_at", "received_at"),
		index.Fields("lease_owner", "status"),
		index.Fields("received_at"),
	}
}

// Annotations of the WebhookEvent.
func (WebhookEvent) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlQueryField(), gqlRelayConnection()}
}
