package schema

// enumDoc describes the values of an enum field in the GraphQL schema: entgql
// gives enum values no description, so ent/entcdoc.go copies these into
// schema/ent.graphqls (graph/describe_test.go fails on an undocumented one).
type enumDoc map[string]string

// Name implements schema.Annotation.
func (enumDoc) Name() string { return "GQLEnumDoc" }
