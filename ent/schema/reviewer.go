package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/chakshu-dev/chakshu/internal/reviewerspec"
)

// Reviewer is one AI reviewer synced from the reviewers repository.
type Reviewer struct{ ent.Schema }

// Mixin of the Reviewer.
func (Reviewer) Mixin() []ent.Mixin { return []ent.Mixin{TimeMixin{}} }

// Fields of the Reviewer.
func (Reviewer) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").Annotations(gqlOrderField("NAME")).
			Comment("directory name under reviewers/; what `review <name>` asks for"),
		field.String("description").Default("").
			Comment("reviewer.yaml's description"),
		field.Bool("enabled").Default(true).Comment("false once the reviewer left the reviewers repo"),
		field.String("synced_commit").Default("").Comment("commit of the reviewers repo the config in force came from"),
		field.Time("synced_at").Optional().Nillable().
			Comment("when the config in force was synced"),
		field.Text("claude_md").Default("").
			Comment("the reviewer's instructions (reviewers/<name>/CLAUDE.md)"),
		field.Text("config_yaml").Default("").Comment("reviewer.yaml as synced"),
		field.JSON("config", &reviewerspec.Config{}).Optional().Annotations(gqlType("Map")).
			Comment("parsed reviewer.yaml in force, keys it leaves out at their defaults"),
		field.JSON("skills", []map[string]any{}).Optional().Annotations(gqlSkipAll()).Comment("skills: name, description, content, files"),
		field.Text("sync_error").Default("").Comment("last sync error; the last good version stays in force"),
		field.Time("sync_error_at").Optional().Nillable().
			Comment("when the last sync error happened; null when the last sync succeeded"),
		field.String("sync_error_commit").Default("").
			Comment("commit of the reviewers repo the last sync error came from"),
	}
}

// Edges of the Reviewer.
func (Reviewer) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("installation", Installation.Type).Ref("reviewers").Unique().Required().
			Comment("the installation whose reviewers repository defines it"),
		edge.To("runs", Run.Type).Annotations(gqlRelayConnection()).
			Comment("the reviewer's runs"),
	}
}

// Indexes of the Reviewer.
func (Reviewer) Indexes() []ent.Index {
	return []ent.Index{index.Fields("name").Edges("installation").Unique()}
}

// Annotations of the Reviewer.
func (Reviewer) Annotations() []schema.Annotation {
	return []schema.Annotation{
		schema.Comment("An AI reviewer defined in the installation's reviewers repository (reviewers/<name>/)."),
		gqlQueryField(), gqlRelayConnection()}
}
