package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Installation is one installation of the GitHub App on an account (org or user).
type Installation struct{ ent.Schema }

// Mixin of the Installation.
func (Installation) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Installation.
func (Installation) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("github_id").Unique().Comment("GitHub's installation id"),
		field.String("account_login").
			Comment("the organisation or user the GitHub App is installed on"),
		field.Int64("account_id").Default(0).Annotations(gqlSkipAll()).
			Comment("GitHub's id of the account the App is installed on: organisations are recognised by it, not by login (a renamed org's login can be taken by someone else); 0 until an installation event or sync records it"),
		field.String("account_type").Default("Organization").
			Comment("Organization or User"),
		field.String("reviewers_repo").Default("").
			Comment("owner/name of the reviewers repository; empty means <account>/chakshu-reviewers"),
		field.Bool("suspended").Default(false).
			Comment("the installation is suspended on GitHub; nothing is reviewed"),
		field.Time("last_sync_at").Optional().Nillable().
			Comment("when reviewers were last synced from the reviewers repository"),
		field.String("last_sync_commit").Default("").
			Comment("commit of the reviewers repository the last sync read"),
		field.Text("last_sync_error").Default("").
			Comment("why the last sync failed; empty when it succeeded"),
		field.Time("sync_requested_at").Optional().Nillable().
			Comment("a reviewers sync was requested (push, start, on demand) and no worker has claimed it yet"),
		field.Text("resolve_blocked").Default("").
			Comment("why Chakshu could not resolve review threads here (GitHub answered FORBIDDEN: Contents: write not granted); empty once a resolve succeeds"),
		field.Float("budget_daily_usd").Default(0).Annotations(gqlSkipAll()).
			Comment("spend allowed per UTC day over the installation's runs, in USD; 0: no daily budget"),
		field.Float("budget_monthly_usd").Default(0).Annotations(gqlSkipAll()).
			Comment("spend allowed per UTC calendar month over the installation's runs, in USD; 0: no monthly budget"),
		field.Time("github_wait_until").Optional().Nillable().Annotations(gqlSkipWhereInput()).
			Comment("GitHub asked Chakshu to wait (a rate limit) until then: every worker process holds this installation's writes to GitHub until it passes"),
		field.Text("github_wait_reason").Default("").Annotations(gqlSkipWhereInput()).
			Comment("which limit GitHub answered with, for the Status page; kept after the wait passes"),
		field.Int("secondary_hits").Default(0).Annotations(gqlSkipAll()).
			Comment("consecutive secondary rate limits without Retry-After: the wait doubles with each (60 s, 120 s, 240 s …); a write that goes through clears it"),
		field.String("write_pace").Default("").Annotations(gqlSkipAll()).
			Comment("the content-creation budget shared by every worker process: per pacing window, when the next write is due (GCRA theoretical arrival time, unix ns, comma-separated)"),
		field.Time("last_claim_at").Optional().Nillable().Annotations(gqlSkipAll()).
			Comment("when a dispatcher last claimed a run of this installation: among installations with as many runs in flight, the one claimed longest ago goes first (round-robin)"),
		field.Time("starts_held_until").Optional().Nillable().Annotations(gqlSkipAll()).
			Comment("no queued run of this installation is claimed for dispatch before then: its content budget for starting reviews is spent, so a claim would only hand the run back"),
	}
}

// Edges of the Installation.
func (Installation) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("backtests", Backtest.Type).Annotations(gqlSkipAll()).
			Comment("backtests of changes to its reviewers"),
		edge.To("repositories", Repository.Type).
			Comment("repositories the installation covers (those the viewer can read)"),
		edge.To("reviewers", Reviewer.Type).
			Comment("reviewers synced from its reviewers repository"),
		edge.To("learnings", ReviewLearning.Type).
			Comment("review learnings stored for it (both scopes)"),
		edge.To("credentials", ConnectorCredential.Type).Annotations(gqlSkipAll()),
	}
}

// Annotations of the Installation.
func (Installation) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A GitHub App installation on an organisation or user, with its repositories and reviewers."),
		gqlQueryField(), gqlRelayConnection()}
}
