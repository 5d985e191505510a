// Package schema holds Chakshu's ent schema: the only hand-written code under ent/.
package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"
)

// TimeMixin adds created_at and updated_at to a table.
type TimeMixin struct{ mixin.Schema }

// Fields of the TimeMixin.
func (TimeMixin) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(time.Now).Immutable().
			Annotations(gqlOrderField("CREATED_AT")).
			Comment("when the row was created"),
		field.Time("updated_at").Default(time.Now).UpdateDefault(time.Now).
			Comment("when the row last changed"),
	}
}
