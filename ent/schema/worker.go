package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Worker is one running worker process, known by its heartbeats.
type Worker struct{ ent.Schema }

// Fields of the Worker.
func (Worker) Fields() []ent.Field {
	return []ent.Field{
		field.String("worker_id").Unique().NotEmpty().
			Comment("the worker process's id (host, pid and a time-based suffix)"),
		field.String("hostname").Default("").
			Comment("host the worker runs on"),
		field.Int("pid").Default(0).
			Comment("process id"),
		field.String("version").Default("").
			Comment("Chakshu version of the worker"),
		field.Time("started_at").Default(time.Now).Immutable().
			Comment("when the worker started"),
		field.Time("heartbeat_at").Default(time.Now).
			Comment("last heartbeat; a worker silent past the dead-worker limit is dead and its work is taken over"),
		field.Bool("stopped").Default(false).
			Comment("the worker shut down cleanly"),
	}
}

// Indexes of the Worker.
func (Worker) Indexes() []ent.Index {
	return []ent.Index{index.Fields("heartbeat_at")}
}

// Annotations of the Worker.
func (Worker) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A worker process (`chakshu worker` or `all`): it dispatches runs, handles webhooks and publishes reviews."),
	}
}
