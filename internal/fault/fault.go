// Package fault is Chakshu's small set of domain error kinds. An error of a
// kind carries a safe sentence for public surfaces (an HTTP answer, a GraphQL
// message, a check run's text) and, wrapped inside, the operator detail for
// logs and the database. Each edge maps a kind once: HTTPStatus here, the
// GraphQL code in graph, the check-run text where runs fail.
package fault

import (
	"errors"
	"fmt"
	"net/http"
)

// Kind is what went wrong, as an edge needs to know it.
type Kind int

// The kinds. The zero Kind is Internal: an error nobody classified.
const (
	// Internal is a failure the caller cannot act on.
	Internal Kind = iota
	// NotFound is a thing that does not exist or the caller cannot see.
	NotFound
	// Invalid is input that can never succeed as given.
	Invalid
	// Conflict is a state that no longer allows the request.
	Conflict
	// Unauthorized is a caller who did not prove who they are.
	Unauthorized
	// Forbidden is a caller who may not do this.
	Forbidden
	// Unavailable is a dependency that failed for now: retrying may succeed.
	Unavailable
)

var kindNames = [...]string{"internal", "not found", "invalid", "conflict", "unauthorized", "forbidden", "unavailable"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is an error of a kind with a safe sentence.
type Error struct {
	Kind Kind
	// Public is the safe sentence: no raw error, no credential, only what
	// the reader can act on.
	Public string
	// Code is an optional machine-readable code for edges that have one
	// (the runner API's "code" field); "" lets the edge choose by Kind.
	Code string
	// Err is the operator detail; it may be nil.
	Err error
}

// Error is the operator's view: the sentence and the detail.
func (e *Error) Error() string {
	if e.Err == nil {
		return e.Public
	}
	return e.Public + ": " + e.Err.Error()
}

// Unwrap returns the detail.
func (e *Error) Unwrap() error { return e.Err }

// New returns an error of kind with the safe sentence public and the detail err.
func New(kind Kind, public string, err error) *Error {
	return &Error{Kind: kind, Public: public, Err: err}
}

// Newf returns an error of kind whose safe sentence is formatted; it has no detail.
func Newf(kind Kind, format string, a ...any) *Error {
	return &Error{Kind: kind, Public: fmt.Sprintf(format, a...)}
}

// WithCode sets the machine-readable code and returns e.
func (e *Error) WithCode(code string) *Error {
	e.Code = code
	return e
}

// As finds the *Error in err's chain.
func As(err error) (*Error, bool) {
	var fe *Error
	if errors.As(err, &fe) {
		return fe, true
	}
	return nil, false
}

// KindOf is err's kind; Internal when err carries none.
func KindOf(err error) Kind {
	if fe, ok := As(err); ok {
		return fe.Kind
	}
	return Internal
}

// Is reports whether err is of kind.
func Is(err error, kind Kind) bool { return err != nil && KindOf(err) == kind }

// HTTPStatus maps a kind to its HTTP status, the one mapping every HTTP edge uses.
func HTTPStatus(k Kind) int {
	switch k {
	case NotFound:
		return http.StatusNotFound
	case Invalid:
		return http.StatusBadRequest
	case Conflict:
		return http.StatusConflict
	case Unauthorized:
		return http.StatusUnauthorized
	case Forbidden:
		return http.StatusForbidden
	case Unavailable:
		return http.StatusBadGateway
	default:
		return http.StatusInternalServerError
	}
}
