package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/chakshu-dev/chakshu/internal/findings"
	"github.com/chakshu-dev/chakshu/internal/reviewerspec"
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
		field.Enum("kind").Values("review", "reply").Default("review").
			Comment("review: a review of the pull request; reply: an answer to a reply on a review thread").
			Annotations(enumDoc{"review": "A review of the pull request's changes.", "reply": "An answer to a person's reply on one of Chakshu's review threads."}),
		field.Enum("status").Values(runStatuses...).Default("queued").
			Annotations(gqlOrderField("STATUS")).
			Comment("queued → dispatched → running → publishing → succeeded; failed or cancelled from any unfinished state").
			Annotations(enumDoc{"queued": "Waiting for a worker to dispatch it.", "dispatched": "The GitHub Actions workflow was dispatched; the agent has not fetched its job yet.", "running": "The agent fetched its job and is reviewing.", "publishing": "The agent reported; the review is being posted.", "succeeded": "Published (or nothing to publish).", "failed": "Stopped by an error; failureReason says why.", "cancelled": "Cancelled by a person or superseded by a newer head."}),
		field.Enum("trigger").Values("comment", "review_request", "label", "portal", "auto", "rerequest", "reply", "backtest").
			Comment("what asked for the run").
			Annotations(enumDoc{"comment": "A `review` command in a pull request comment.", "review_request": "Chakshu's reviewer team or user was requested as a reviewer.", "label": "A label set on the pull request.", "portal": "Review a PR in the portal or the requestReview mutation.", "auto": "An automatic rule (reviewer.yaml or chakshu.yml auto).", "rerequest": "Re-run from the check run on GitHub.", "reply": "A person replied on a review thread.", "backtest": "A backtest of a change to the reviewer (a shadow run)."}),
		field.Bool("shadow").Default(false).
			Comment("a backtest run: reviewed like any other, but nothing is posted on the pull request (no review, check, thread or request change)"),
		field.Enum("backtest_side").Values("none", "old", "new").Default("none").
			Comment("for a shadow run: which version of the reviewer it ran (the one in force, or the change's)").
			Annotations(enumDoc{"none": "Not a backtest run.", "old": "The reviewer as in force (the change's base).", "new": "The reviewer as the change would make it."}),
		field.Int("backtest_id").Default(0).
			Comment("the backtest a shadow run belongs to; 0 for other runs (a plain column, not a foreign key: on SQLite adding a foreign key to runs copies the whole table)"),
		field.JSON("reviewer_snapshot", &reviewerspec.Snapshot{}).Optional().Annotations(gqlSkipAll()).
			Comment("a shadow run's reviewer (claude_md, config, skills) to use instead of the one in force"),
		field.Int("pr_number").
			Comment("pull request number in the repository"),
		field.String("pr_title").Default("").
			Comment("the pull request's title when the run was queued"),
		field.String("pr_url").Default("").
			Comment("the pull request's web URL"),
		field.String("head_sha").
			Comment("the commit reviewed"),
		field.String("head_ref").Default("").
			Comment("the pull request's branch"),
		field.String("base_sha").Default("").
			Comment("the base commit compared against"),
		field.String("base_ref").Default("").
			Comment("the branch the pull request merges into"),
		field.Bytes("pr_files").Optional().Nillable().Annotations(gqlSkipAll()).
			Comment("the PR's files and patches at head_sha as the job listed them (diffmap.EncodeFiles: gzip'd JSON, patches past the job's 8 MB cut left out); publishing reads them instead of listing them again; NULL until the job is built (or built by a schema-3 binary)"),
		field.Text("repo_config").Optional().Nillable().Annotations(gqlSkipAll()).
			Comment("the repository's .github/chakshu.yml as read from its default branch when the run was queued or, if not read then, when its job was built; empty when there is none; NULL until read"),
		field.String("incremental_since").Default("").Comment("SHA this review is incremental from; empty for a full review"),
		field.String("full_review_reason").Default("").Comment("why a full review was done, e.g. force push"),
		field.String("requester").Default("").
			Comment("GitHub login of who asked (empty for automatic runs)"),
		field.Text("note").Default("").Comment("requester's note (untrusted)"),
		field.String("request_target").Default("").Comment("team:<slug> or user:<login> whose review request triggered this run"),
		field.String("model").Default("").
			Comment("model id the reviewer ran with (the reviewer's model in force)"),
		field.String("provider").Default("").
			Comment("model provider the gateway sent the run's requests to (anthropic, bedrock, vertex, foundry, openai); empty before the first"),
		field.Float("max_cost_usd").Default(0).
			Comment("the run's hard cost cap in USD (reviewer.yaml max_cost_usd)"),
		// Dispatch and Actions.
		field.Int64("check_run_id").Default(0).
			Comment("GitHub id of the check run; 0 before dispatch"),
		field.Bool("check_completed").Default(false).Comment("the check run was completed on GitHub"),
		field.Int64("actions_run_id").Default(0).
			Comment("GitHub Actions workflow run id; 0 until known"),
		field.String("actions_run_url").Default("").
			Comment("web URL of the Actions run; empty until known"),
		field.String("run_token_hash").Default("").Sensitive().Annotations(gqlSkipAll()),
		field.String("result_hash").Default("").Sensitive().Annotations(gqlSkipAll()).
			Comment("receipt of the accepted report: hash of the run token hash and the report body; lets an identical repeat be acknowledged"),
		field.Bool("model_final_used").Default(false).Annotations(gqlSkipAll()).
			Comment("the one model request allowed past the cost cap (X-Chakshu-Final) was spent"),
		// Lease for the worker that holds the run (dispatching or publishing).
		field.String("lease_owner").Default("").
			Comment("the worker holding the run now (dispatching or publishing); empty when none"),
		field.Time("heartbeat_at").Optional().Nillable().
			Comment("the holding worker's last heartbeat"),
		field.Int("attempts").Default(0).
			Comment("dispatch or publish attempts so far"),
		field.Time("next_attempt_at").Optional().Nillable().
			Comment("a retry waits until then"),
		// Retry state as columns (never counted back from the timeline).
		field.Int("publish_failures").Default(0).Annotations(gqlSkipAll()).
			Comment("publishing attempts that failed and were put back for a retry; bounds the retries"),
		field.Int("finish_attempts").Default(0).Annotations(gqlSkipAll()).
			Comment("failed attempts to complete the check run of a failed or cancelled run"),
		field.Time("finish_next_at").Optional().Nillable().Annotations(gqlSkipAll()).
			Comment("completing the check run is retried then (the finisher's own backoff)"),
		field.Time("actions_cancelled_at").Optional().Nillable().Annotations(gqlSkipAll()).
			Comment("when the Actions run of the ended run was cancelled, or found already finished; it is cancelled once"),
		// Timestamps.
		field.Time("dispatched_at").Optional().Nillable().
			Comment("when the workflow was dispatched"),
		field.Time("started_at").Optional().Nillable().
			Comment("when the agent fetched its job"),
		field.Time("reported_at").Optional().Nillable().
			Comment("when the agent reported its result"),
		field.Time("finished_at").Optional().Nillable().Annotations(gqlOrderField("FINISHED_AT")).
			Comment("when the run reached succeeded, failed or cancelled"),
		// Figures.
		field.Float("cost_usd").Default(0).Annotations(gqlOrderField("COST")).
			Comment("model cost in USD metered by the gateway"),
		field.Int64("input_tokens").Default(0).
			Comment("uncached input tokens"),
		field.Int64("output_tokens").Default(0).
			Comment("output tokens"),
		field.Int64("cache_read_tokens").Default(0).
			Comment("input tokens read from the prompt cache"),
		field.Int64("cache_write_tokens").Default(0).
			Comment("input tokens written to the prompt cache"),
		field.Text("model_price").Default("").
			Comment("the model's prices the run was metered at (JSON, US dollars per million tokens: input, output, cache_write_5m, cache_write_1h, cache_read; tiers), from the model catalogue"),
		field.Int("turns").Default(0).
			Comment("agent turns (model requests)"),
		field.Int64("duration_ms").Default(0).Annotations(gqlOrderField("DURATION")).
			Comment("from the agent fetching its job (or queueing, if it never did) to publishing, in milliseconds; 0 until published"),
		field.Text("summary").Default("").
			Comment("the review's summary as posted"),
		field.JSON("result", &findings.Stored{}).Optional().Annotations(gqlSkipAll()).
			Comment("the result as accepted: parsed, validated and redacted once when the runner reports, with what the agent read (GraphQL Run.checked); read by internal/runstate.Result"),
		field.JSON("filtered_files", []string{}).Optional().Annotations(gqlSkipAll()).
			Comment("files of the PR dropped by path_filters (set with the job); the review's coverage line counts them"),
		field.String("failure_reason").Default("").Comment("safe sentence, fit for public surfaces"),
		field.Text("failure_detail").Default("").Comment("operator detail, redacted").
			Annotations(gqlSkipWhereInput()),
		field.Int("findings_blocker").Default(0).
			Comment("blocker findings reported"),
		field.Int("findings_major").Default(0).
			Comment("major findings reported"),
		field.Int("findings_minor").Default(0).
			Comment("minor findings reported"),
		field.Int("findings_nit").Default(0).
			Comment("nit findings reported"),
		field.Int("findings_posted").Default(0).
			Comment("findings published on the pull request"),
		field.Int("findings_dropped").Default(0).
			Comment("findings not published (below min_severity, over max_findings, already on the PR)"),
		field.Int64("review_id").Default(0).Comment("the PR review Chakshu posted for this run"),
		field.JSON("learnings_used", []int{}).Optional().Annotations(gqlSkipAll()),
		// Branch state.
		field.Int("changed_files").Default(0).
			Comment("files changed by the pull request"),
		field.Int("additions").Default(0).
			Comment("lines added"),
		field.Int("deletions").Default(0).
			Comment("lines deleted"),
		field.Int("behind_by").Default(0).
			Comment("commits the head is behind the base branch"),
		field.Int("ahead_by").Default(0).
			Comment("commits the head is ahead of the base branch"),
		field.Bool("from_fork").Default(false).
			Comment("the head branch is in a fork"),
		// Reply runs.
		field.Int64("reply_to_comment_id").Optional().Nillable().Comment("the person's reply this run answers"),
		field.Int64("thread_root_comment_id").Default(0).
			Comment("for a reply run: the first comment of the review thread"),
		field.Int64("reply_comment_id").Default(0).Comment("Chakshu's posted answer"),
	}
}

// Edges of the Run.
func (Run) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("repository", Repository.Type).Ref("runs").Unique().Required().
			Comment("the pull request's repository"),
		edge.From("reviewer", Reviewer.Type).Ref("runs").Unique().Required().
			Comment("the reviewer that ran"),
		edge.To("findings", Finding.Type).Annotations(gqlRelayConnection()).
			Comment("what the run found, posted or not"),
		edge.To("events", RunEvent.Type).
			Comment("status changes and notes, the timeline"),
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
		index.Fields("backtest_id"),
		// The Costs page's backtest share (costSummary.backtest) counts the shadow runs of
		// the period: through created_at alone a year's count read every run of the year
		// (250 ms of a 260 ms summary beside a million runs, BenchmarkPortal).
		index.Fields("shadow", "created_at"),
		// Portal runs page: filtered by status and repository or reviewer, newest first
		// (the repository/reviewer column in the index spares a row lookup per skipped run).
		index.Fields("status", "created_at").Edges("repository"),
		index.Fields("status", "created_at").Edges("reviewer"),
		// Live updates (runUpdated) poll for runs changed since a time.
		index.Fields("updated_at"),
		// No second review run for the same PR, reviewer and head SHA while one is queued or in flight.
		// Shadow runs (backtests) are left out: the old and new version of a backtest review one
		// head side by side, and neither may block (or be blocked by) a real review of that head.
		// Named: it replaced one without the shadow condition (store.Current.Schema 3 drops that one).
		index.Fields("pr_number", "head_sha", "kind").Edges("repository", "reviewer").Unique().
			StorageKey("run_active_review").
			Annotations(entsql.IndexWhere("status IN ('queued','dispatched','running','publishing') AND kind = 'review' AND shadow = false")),
		// One reply run per reply comment.
		index.Fields("reply_to_comment_id").Unique(),
	}
}

// Annotations of the Run.
func (Run) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("One reviewer reviewing (or replying on) one pull request at one head commit, with its cost and findings."),
		gqlQueryField(), gqlRelayConnection()}
}
