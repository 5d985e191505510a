package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
)

// HookCursor is how far the webhook recovery loop has read the App's
// delivery log (GET /app/hook/deliveries): one row per GitHub App.
type HookCursor struct{ ent.Schema }

// Fields of the HookCursor.
func (HookCursor) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("app_id").Unique().Comment("the GitHub App whose deliveries these are"),
		field.Int64("last_delivery_id").Default(0).
			Comment("newest delivery attempt id already looked at; older ones are never listed again"),
		field.Time("checked_at").Optional().Nillable(),
	}
}

// Annotations of the HookCursor.
func (HookCursor) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlSkipAll()}
}
