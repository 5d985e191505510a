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
		field.String("delivery_id").Unique().NotEmpty().
			Comment("GitHub's X-GitHub-Delivery id"),
		field.String("event").Annotations(gqlOrderField("EVENT")).
			Comment("X-GitHub-Event, e.g. pull_request, issue_comment"),
		field.String("action").Default("").
			Comment("the payload's action, e.g. opened; empty when the event has none"),
		field.Int64("installation_id").Default(0).
			Comment("GitHub's installation id from the payload; 0 when none"),
		field.String("repository").Default("").
			Comment("owner/name from the payload; empty when none"),
		field.Bytes("payload").Annotations(gqlSkipAll()),
		field.Enum("status").Values("pending", "processing", "done", "failed").Default("pending").
			Annotations(gqlOrderField("STATUS")).
			Comment("pending, processing, done or failed (retries exhausted; retryWebhookEvent queues it again)").
			Annotations(enumDoc{"pending": "Stored, waiting for a worker.", "processing": "A worker is handling it.", "done": "Handled.", "failed": "Handling failed after its retries; an admin can retry it."}),
		field.Int("attempts").Default(0).
			Comment("how many times a worker tried to handle it"),
		field.Text("last_error").Default("").Comment("redacted").Annotations(gqlSkipWhereInput()),
		field.String("lease_owner").Default("").
			Comment("the worker handling it now; empty when none"),
		field.Time("heartbeat_at").Optional().Nillable().
			Comment("the handling worker's last heartbeat"),
		field.Time("next_attempt_at").Optional().Nillable().
			Comment("a retry waits until then"),
		field.Time("received_at").Default(time.Now).Immutable().Annotations(gqlOrderField("RECEIVED_AT")).
			Comment("when Chakshu accepted the delivery"),
		field.Time("handled_at").Optional().Nillable().
			Comment("when handling finished (done or failed)"),
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
	return []schema.Annotation{
		schema.Comment("A webhook delivery from GitHub, as stored and handled."),
		gqlQueryField(), gqlRelayConnection()}
}
