package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// AuditEntry records one admin action (a retry, a cancel, a review request, a
// credential or token change, a budget set, a reviewers repository set or
// synced, a learning turned on or off): who did it, to what, and when.
// It is written in the transaction of the action it records (internal/audit).
type AuditEntry struct{ ent.Schema }

// Fields of the AuditEntry.
func (AuditEntry) Fields() []ent.Field {
	return []ent.Field{
		field.Time("created_at").Default(time.Now).Immutable().Annotations(gqlOrderField("CREATED_AT")).
			Comment("when the action was taken"),
		field.String("actor").Immutable().
			Comment("the GitHub login who acted, or cli:<user> for a command on the server"),
		field.String("action").Immutable().
			Comment("what was done: run.cancel, review.request, webhook.retry, credential.set, credential.delete, token.create, token.revoke, budget.set, installation.reviewers_repo, installation.reviewers_sync, learning.enable, learning.disable, repository.onboarding"),
		field.Int("installation_id").Default(0).Immutable().
			Comment("Chakshu's id of the installation acted on; 0 for an action outside any installation"),
		field.String("target").Default("").Immutable().
			Comment("what was acted on, e.g. acme/api#12 reviewer security, or connector http credential jira"),
		field.Text("detail").Default("").Immutable().Annotations(gqlSkipWhereInput()).
			Comment("what changed (never a secret)"),
	}
}

// Indexes of the AuditEntry.
func (AuditEntry) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("created_at"),
		index.Fields("installation_id", "created_at"),
	}
}

// Annotations of the AuditEntry.
func (AuditEntry) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("One admin action, recorded in the transaction of the action: admins only."),
		gqlQueryField("auditLog"), gqlRelayConnection()}
}
