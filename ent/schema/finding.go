package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Finding is one finding an agent reported in a run, posted or dropped.
type Finding struct{ ent.Schema }

// Mixin of the Finding.
func (Finding) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// findingOutcomes are what can become of a posted finding (issue: reviewer quality).
var findingOutcomes = []string{"open", "fixed", "dismissed", "acknowledged", "open_at_merge", "closed_unmerged"}

// Fields of the Finding.
func (Finding) Fields() []ent.Field {
	return []ent.Field{
		field.String("hidden_id").Comment("hash of path, category and normalised title"),
		field.String("path").
			Comment("file the finding is about, relative to the repository root"),
		field.Int("line").Default(0).
			Comment("last line of the commented range in the file (0: about the file as a whole)"),
		field.Int("start_line").Default(0).
			Comment("first line of a multi-line range; 0 for a single line"),
		field.String("side").Default("RIGHT").
			Comment("RIGHT (the new version of the file) or LEFT (the old), as GitHub review comments take it"),
		field.Enum("severity").Values("blocker", "major", "minor", "nit").Annotations(gqlOrderField("SEVERITY")).
			Comment("how much it matters: blocker, major, minor or nit").
			Annotations(enumDoc{"blocker": "Must be fixed before merging.", "major": "A real problem that should be fixed.", "minor": "Worth fixing, not urgent.", "nit": "Style or taste."}),
		field.String("category").Default("").
			Comment("the reviewer's category, e.g. security, correctness, performance"),
		field.String("title").
			Comment("one-line summary"),
		field.Text("body").Default("").
			Comment("the explanation, in markdown"),
		field.Text("suggestion").Default("").
			Comment("replacement text for the range (a GitHub suggestion); empty when none"),
		field.Bool("posted").Default(false).
			Comment("published on the pull request (inline or in the review body)"),
		field.Enum("placement").Values("inline", "body", "none").Default("none").
			Comment("where it was published: an inline comment, the review body, or not at all").
			Annotations(enumDoc{"inline": "Posted as an inline review comment on its line.", "body": "Posted in the review body (its line is not in the diff).", "none": "Not posted (see droppedReason)."}),
		field.String("dropped_reason").Default("").Comment("why it was not posted: below min_severity, over max_findings, already on the PR"),
		field.Int64("comment_id").Default(0).
			Comment("GitHub id of the finding's review comment; 0 when not inline"),
		field.String("comment_url").Default("").
			Comment("link to the finding's comment on GitHub; empty when not inline"),
		field.String("thread_id").Default("").Comment("GraphQL node id of the review thread"),
		field.Bool("resolved").Default(false).
			Comment("its review thread was resolved (by a person, or by Chakshu once outdated)"),
		field.Text("evidence").Default("").
			Comment("the agent's quote of the code the finding rests on: exact text from the file at the head commit"),
		field.Int("evidence_moved_from").Default(0).
			Comment("the line the agent named when the evidence was found on a nearby line instead (the finding was moved there); 0 when not moved"),
		field.Enum("outcome").Values(findingOutcomes...).Default("open").Annotations(gqlOrderField("OUTCOME")).
			Comment("what became of a posted finding, read from GitHub: open until decided").
			Annotations(enumDoc{"open": "Not decided yet (or not posted).", "fixed": "A later commit changed the lines under it and it did not come back, or its suggestion was applied.", "dismissed": "A person resolved its thread with no change under it, replied that it is wrong, or reacted 👎.", "acknowledged": "A person reacted 👍 or replied agreeing.", "open_at_merge": "Still open when the pull request was merged.", "closed_unmerged": "The pull request was closed without merging while it was open."}),
		field.Time("outcome_at").Optional().Nillable().
			Comment("when the outcome was decided"),
		field.String("outcome_reason").Default("").
			Comment("the GitHub fact the outcome rests on, e.g. 'lines 10-12 changed in abc1234', 'thread resolved by @alice'"),
	}
}

// Edges of the Finding.
func (Finding) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("run", Run.Type).Ref("findings").Unique().Required().
			Comment("the run that found it"),
	}
}

// Indexes of the Finding.
func (Finding) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("hidden_id"),
		index.Fields("comment_id"),
		index.Fields("outcome"),
		// The Quality page joins a period's runs to their findings, and the
		// metrics read the outcomes decided lately (internal/metrics).
		index.Edges("run"),
		index.Fields("outcome_at"),
	}
}

// Annotations of the Finding.
func (Finding) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("One thing a reviewer found in a run: a file, a line range, a severity and a category; posted on the pull request unless dropped."),
		gqlQueryField(), gqlRelayConnection()}
}
