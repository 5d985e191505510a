// Package scalar holds the GraphQL scalars whose parsing Chakshu decides.
package scalar

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
)

// ErrInvalidID marks an ID argument that is not one of Chakshu's ids; the
// API answers it with the INVALID code, not as an internal error.
var ErrInvalidID = errors.New("not a valid id")

// MarshalID writes an ent global id as a GraphQL ID (a string).
func MarshalID(id int) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(strconv.Itoa(id)))
	})
}

// UnmarshalID reads an ID given as a decimal string or number.
func UnmarshalID(v any) (int, error) {
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case int:
		return v, nil
	case int64:
		return int(v), nil
	default:
		if n, ok := v.(interface{ String() string }); ok { // json.Number
			s = n.String()
		} else {
			return 0, fmt.Errorf("%w: a %T", ErrInvalidID, v)
		}
	}
	id, err := strconv.Atoi(s)
	if err != nil || id < 0 {
		return 0, fmt.Errorf("%w: %q", ErrInvalidID, truncate(s))
	}
	return id, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
