package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/chakshu-dev/chakshu/internal/reviewerspec"
)

// Backtest replays one reviewer change (a pull request to the reviewers
// repository) over the last pull requests that reviewer reviewed: shadow
// runs of the old and the new version, compared in one comment.
type Backtest struct{ ent.Schema }

// Mixin of the Backtest.
func (Backtest) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Backtest.
func (Backtest) Fields() []ent.Field {
	return []ent.Field{
		field.String("reviewer_name").
			Comment("the reviewer the change touches"),
		field.String("reviewers_repo").
			Comment("owner/name of the reviewers repository the pull request is in"),
		field.Int("pr_number").
			Comment("the reviewers repository's pull request that changes the reviewer"),
		field.String("pr_url").Default("").
			Comment("the change's pull request on GitHub"),
		field.String("head_sha").
			Comment("head of the change: the new version"),
		field.String("base_sha").Default("").
			Comment("base of the change: the old version"),
		field.Enum("status").Values("queued", "running", "completed", "failed", "cancelled").Default("queued").
			Comment("queued → running → completed; failed or cancelled").
			Annotations(enumDoc{"queued": "Waiting to pick pull requests and queue shadow runs.", "running": "Shadow runs are queued or running.", "completed": "Compared and reported.", "failed": "Stopped by an error; failureReason says why.", "cancelled": "Superseded by a newer push to the change, or its pull request closed."}),
		field.Int("max_prs").Default(10).
			Comment("how many recently reviewed pull requests to replay (reviewer.yaml backtest.prs)"),
		field.Float("max_cost_usd").Default(5).
			Comment("cost cap for all shadow runs together (reviewer.yaml backtest.max_cost_usd)"),
		field.Float("cost_usd").Default(0).
			Comment("spent by its shadow runs so far"),
		field.Int64("check_run_id").Default(0).
			Comment("the `Chakshu backtest · <reviewer>` check run on the change's head"),
		field.Int64("comment_id").Default(0).
			Comment("the comparison comment on the change's pull request"),
		field.Text("report").Default("").
			Comment("the comparison as posted (markdown)"),
		field.JSON("summary", map[string]any{}).Optional().Annotations(gqlType("Map")).
			Comment("the comparison's figures: kept, added and dropped per severity; dropped that were fixed or dismissed; cost and duration of each side"),
		field.String("failure_reason").Default("").Comment("safe sentence, fit for public surfaces"),
		field.Time("finished_at").Optional().Nillable().
			Comment("when it completed, failed or was cancelled"),
		field.JSON("old_snapshot", &reviewerspec.Snapshot{}).Optional().Annotations(gqlSkipAll()).
			Comment("the reviewer in force when the backtest started, as its old-side shadow runs carry it (Run.reviewer_snapshot)"),
		field.JSON("new_snapshot", &reviewerspec.Snapshot{}).Optional().Annotations(gqlSkipAll()).
			Comment("the reviewer as the change's head makes it, as its new-side shadow runs carry it"),
		field.Bool("check_completed").Default(false).Annotations(gqlSkipAll()).
			Comment("the check run was completed on GitHub (a cancelled backtest completes it once)"),
		// Lease (internal/store/lease.go): a worker starts, advances and reports a backtest under it.
		field.String("lease_owner").Default("").Annotations(gqlSkipAll()).
			Comment("the worker holding the backtest now; empty when none"),
		field.Time("heartbeat_at").Optional().Nillable().Annotations(gqlSkipAll()).
			Comment("the holding worker's last heartbeat"),
		field.Time("next_attempt_at").Optional().Nillable().Annotations(gqlSkipAll()).
			Comment("when a worker looks at it next"),
	}
}

// Edges of the Backtest.
func (Backtest) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("installation", Installation.Type).Ref("backtests").Unique().Required().Annotations(gqlSkipAll()).
			Comment("the installation whose reviewers repository holds the change"),
	}
}

// Indexes of the Backtest.
func (Backtest) Indexes() []ent.Index {
	return []ent.Index{index.Fields("reviewers_repo", "pr_number", "reviewer_name"), index.Fields("status", "next_attempt_at", "created_at")}
}

// Annotations of the Backtest.
func (Backtest) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A backtest of one reviewer change: shadow runs of the old and the new version over the pull requests that reviewer reviewed last, and their comparison."),
		gqlRelayConnection()}
	// Its shadow runs are the runs whose backtest_id is its id.
}
