//go:build !entgen

package schema

import "entgo.io/ent/schema"

// At run time the schema package is imported only for its defaults,
// validators and hooks (ent/runtime.go); nothing reads annotations, so the
// GraphQL ones are inert placeholders and entgql (with its code generator)
// stays out of the server. gql_gen.go has the real ones for `make generate`.

type gqlInert struct{}

func (gqlInert) Name() string { return "EntGQLInert" }

func gqlSkipAll() schema.Annotation             { return gqlInert{} }
func gqlSkipWhereInput() schema.Annotation      { return gqlInert{} }
func gqlOrderField(string) schema.Annotation    { return gqlInert{} }
func gqlType(string) schema.Annotation          { return gqlInert{} }
func gqlRelayConnection() schema.Annotation     { return gqlInert{} }
func gqlQueryField(...string) schema.Annotation { return gqlInert{} }
