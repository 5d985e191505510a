package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Run is one reviewer reviewing (or replying on) one pull request. The runs table is the job queue.
type Run struct{ ent.Schema }

// Mixin of the Run.
func (Run) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Run statuses. queued → dispatched → running → publishing → succeeded; failed and
// cancelled from any non-terminal state.
var runStatuses = []string{"queued", "dispatched", "running", "publishing", "succeeded", "failed", "cancelled"}

// Fields of the Run.
func (Run) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("kind").Values("review", "reply").Default("review"),
		field.Enum("status").Values(runStatuses...).Default("queued").
			Annotations(gqlOrderField("STATUS")),
		field.Enum("trigger").Values("comment", "review_request", "label", "portal", "auto", "rerequest", "reply"),
		field.Int("pr_number"),
		field.String("pr_title").Default(""),
		field.String("pr_url").Default(""),
		field.String("head_sha"),
		field.String("head_ref").Default(""),
		field.String("base_sha").Default(""),
		field.String("base_ref").Default(""),
		field.String("incremental_since").Default("").Comment("SHA this review is incremental from; empty for a full review"),
		field.String("full_review_reason").Default("").Comment("why a full review was done, e.g. force push"),
		field.String("requester").Default(""),
		field.Text("note").Default("").Comment("requester's note (untrusted)"),
		field.String("request_target").Default("").Comment("team:<slug> or user:<login> whose review request triggered this run"),
		field.String("model").Default(""),
		field.Float("max_cost_usd").Default(0),
		// Dispatch and Actions.
		field.Int64("check_run_id").Default(0),
		field.Bool("check_completed").Default(false).Comment("the check run was completed on GitHub"),
		field.Int64("actions_run_id").Default(0),
		field.String("actions_run_url").Default(""),
		field.String("run_token_hash").Default("").Sensitive().Annotations(gqlSkipAll()),
		field.String("result_hash").Default("").Sensitive().Annotations(gqlSkipAll()).
			Comment("receipt of the accepted report: hash of the run token hash and the report body; lets an identical repeat be acknowledged"),
		field.Bool("model_final_used").Default(false).Annotations(gqlSkipAll()).
			Comment("the one model request allowed past the cost cap (X-Chakshu-Final) was spent"),
		// Lease for the worker that holds the run (dispatching or publishing).
		field.String("lease_owner").Default(""),
		field.Time("heartbeat_at").Optional().Nillable(),
		field.Int("attempts").Default(0),
		field.Time("next_attempt_at").Optional().Nillable(),
		// Timestamps.
		field.Time("dispatched_at").Optional().Nillable(),
		field.Time("started_at").Optional().Nillable(),
		field.Time("reported_at").Optional().Nillable(),
		field.Time("finished_at").Optional().Nillable().Annotations(gqlOrderField("FINISHED_AT")),
		// Figures.
		field.Float("cost_usd").Default(0).Annotations(gqlOrderField("COST")),
		field.Int64("input_tokens").Default(0),
		field.Int64("output_tokens").Default(0),
		field.Int64("cache_read_tokens").Default(0),
		field.Int64("cache_write_tokens").Default(0),
		field.Text("model_price").Default("").Comment("the model's prices the run was metered at (JSON, US dollars per million tokens: input, output, cache_write_5m, cache_write_1h, cache_read; tiers), from the model catalogue"),
		field.Int("turns").Default(0),
		field.Int64("duration_ms").Default(0).Annotations(gqlOrderField("DURATION")),
		field.Text("summary").Default(""),
		field.JSON("checked", map[string]any{}).Optional().Annotations(gqlType("Map")).Comment("what the agent read and which skills it used"),
		field.JSON("filtered_files", []string{}).Optional().Annotations(gqlSkipAll()).
			Comment("files of the PR dropped by path_filters (set with the job); the review's coverage line counts them"),
		field.Text("result_json").Default("").Annotations(gqlSkipAll()).
			Comment("the result as the runner reported it"),
		field.String("failure_reason").Default("").Comment("safe sentence, fit for public surfaces"),
		field.Text("failure_detail").Default("").Comment("operator detail, redacted").
			Annotations(gqlSkipWhereInput()),
		field.Int("findings_blocker").Default(0),
		field.Int("findings_major").Default(0),
		field.Int("findings_minor").Default(0),
		field.Int("findings_nit").Default(0),
		field.Int("findings_posted").Default(0),
		field.Int("findings_dropped").Default(0),
		field.Int64("review_id").Default(0).Comment("the PR review Chakshu posted for this run"),
		field.JSON("learnings_used", []int{}).Optional().Annotations(gqlSkipAll()),
		// Branch state.
		field.Int("changed_files").Default(0),
		field.Int("additions").Default(0),
		field.Int("deletions").Default(0),
		field.Int("behind_by").Default(0),
		field.Int("ahead_by").Default(0),
		field.Bool("from_fork").Default(false),
		// Reply runs.
		field.Int64("reply_to_comment_id").Optional().Nillable().Comment("the person's reply this run answers"),
		field.Int64("thread_root_comment_id").Default(0),
		field.Int64("reply_comment_id").Default(0).Comment("Chakshu's posted answer"),
	}
}

// Edges of the Run.
func (Run) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("repository", Repository.Type).Ref("runs").Unique().Required(),
		edge.From("reviewer", Reviewer.Type).Ref("runs").Unique().Required(),
		edge.To("findings", Finding.Type).Annotations(gqlRelayConnection()),
		edge.To("events", RunEvent.Type),
	}
}

// Indexes of the Run.
func (Run) Indexes() []ent.Index {
	return []ent.Index{
		// Queue claims: oldest queued first.
		index.Fields("status", "next_attempt_at", "created_at"),
		// Sweeps of held work.
		index.Fields("lease_owner", "status"),
		// Portal filters.
		index.Fields("created_at"),
		index.Fields("status", "created_at"),
		index.Fields("pr_number").Edges("repository"),
		index.Fields("created_at").Edges("repository"),
		index.Fields("created_at").Edges("reviewer"),
		index.Fields("actions_run_id"),
		// Portal runs page: filtered by status and repository or reviewer, newest first
		// (the repository/reviewer column in the index spares a row lookup per skipped run).
		index.Fields("status", "created_at").Edges("repository"),
		index.Fields("status", "created_at").Edges("reviewer"),
		// Live updates (runUpdated) poll for runs changed since a time.
		index.Fields("updated_at"),
		// No second review run for the same PR, reviewer and head SHA while one is queued or in flight.
		index.Fields("pr_number", "head_sha", "kind").Edges("repository", "reviewer").Unique().
			Annotations(entsql.IndexWhere("status IN ('queued','dispatched','running','publishing') AND kind = 'review'")),
		// One reply run per reply comment.
		index.Fields("reply_to_comment_id").Unique(),
	}
}

// Annotations of the Run.
func (Run) Annotations() []schema.Annotation {
	return []schema.Annotation{gqlQueryField(), gqlRelayConnection()}
}
