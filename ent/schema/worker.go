package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Worker is one running worker process, known by its heartbeats.
type Worker struct{ ent.Schema }

// Fields of the Worker.
func (Worker) Fields() []ent.Field {
	return []ent.Field{
		field.String("worker_id").Unique().NotEmpty(),
		field.String("hostname").Default(""),
		field.Int("pid").Default(0),
		field.String("version").Default(""),
		field.Time("started_at").Default(time.Now).Immutable(),
		field.Time("heartbeat_at").Default(time.Now),
		field.Bool("stopped").Default(false),
	}
}

// Indexes of the Worker.
func (Worker) Indexes() []ent.Index {
	return []ent.Index{index.Fields("heartbeat_at")}
}
