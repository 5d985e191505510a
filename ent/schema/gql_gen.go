//go:build entgen

package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent/schema"
)

// The GraphQL annotations as entgql reads them. ent/entc.go loads the schema
// with the entgen build tag; the server builds gql_runtime.go instead, so it
// does not link entgql's code generator (see graph/entgqlrt).

func gqlSkipAll() schema.Annotation               { return entgql.Skip(entgql.SkipAll) }
func gqlSkipWhereInput() schema.Annotation        { return entgql.Skip(entgql.SkipWhereInput) }
func gqlOrderField(name string) schema.Annotation { return entgql.OrderField(name) }
func gqlType(name string) schema.Annotation       { return entgql.Type(name) }
func gqlRelayConnection() schema.Annotation       { return entgql.RelayConnection() }
func gqlQueryField(name ...string) schema.Annotation {
	return entgql.QueryField(name...)
}
