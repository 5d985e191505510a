package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// ReviewLearning is a directive for future reviews, from a reply or the portal.
type ReviewLearning struct{ ent.Schema }

// Mixin of the ReviewLearning.
func (ReviewLearning) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the ReviewLearning.
func (ReviewLearning) Fields() []ent.Field {
	return []ent.Field{
		field.Enum("scope").Values("repo", "installation").Default("repo").
			Comment("repo: applies to one repository; installation: to all of the installation").
			Annotations(enumDoc{"repo": "Applies to one repository.", "installation": "Applies to every repository of the installation."}),
		field.String("glob").Default("").MaxLen(256).Comment("file glob; empty matches every file"),
		field.Text("directive").MaxLen(2000).
			Comment("the instruction given to reviewers, e.g. \"prefer errors.Is over ==\""),
		field.String("dedupe_key").Unique().Annotations(gqlSkipAll()).
			Comment("hash of scope, installation, repository, glob and directive"),
		field.String("author").Default("").
			Comment("GitHub login of who created it"),
		field.Int("pr_number").Default(0).
			Comment("the pull request whose reply created it; 0 from the portal"),
		field.Int64("comment_id").Default(0).
			Comment("GitHub id of the reply that created it; 0 from the portal"),
		field.String("source").Default("portal").Comment("reply, portal or outcome (proposed from a dismissed finding)"),
		field.Enum("status").Values("proposed", "accepted", "discarded").Default("accepted").
			Comment("proposed learnings (from a dismissed finding) are never used until a person accepts them").
			Annotations(enumDoc{"proposed": "Proposed from a finding people dismissed; not used until a person accepts it.", "accepted": "In force (when enabled).", "discarded": "A proposal a person discarded; never used."}),
		field.Int("finding_id").Default(0).
			Comment("the dismissed finding that proposed it; 0 when not proposed"),
		field.Int("use_count").Default(0).
			Comment("how many runs put it in their prompt"),
		field.Time("last_used_at").Optional().Nillable().Annotations(gqlOrderField("LAST_USED_AT")).
			Comment("the last run that used it; null if never used"),
		field.Bool("enabled").Default(true).
			Comment("disabled learnings are kept but not used"),
	}
}

// Edges of the ReviewLearning.
func (ReviewLearning) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("installation", Installation.Type).Ref("learnings").Unique().Required().
			Comment("the installation it belongs to"),
		edge.From("repository", Repository.Type).Ref("learnings").Unique().
			Comment("the repository of a repo-scoped learning; null for installation scope"),
	}
}

// Annotations of the ReviewLearning.
func (ReviewLearning) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("A standing directive for reviewers (from a reply `@chakshu remember …` or the portal), applied to files matching its glob."),
		gqlQueryField(), gqlRelayConnection()}
}
