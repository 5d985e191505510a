package entgqlrt

import (
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// ErrNodeNotFound is the GraphQL error for a global id that resolves to no
// node, with the extension code NOT_FOUND.
func ErrNodeNotFound(id any) *gqlerror.Error {
	err := gqlerror.Errorf("Could not resolve to a node with the global id of '%v'", id)
	errcode.Set(err, "NOT_FOUND")
	return err
}
