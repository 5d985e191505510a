package graph

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/graph/scalar"
	"github.com/chakshu-dev/chakshu/internal/fault"
	"github.com/chakshu-dev/chakshu/internal/redact"
)

// Code is the machine-readable kind of an error, in extensions.code.
type Code string

// Codes.
const (
	CodeUnauthenticated Code = "UNAUTHENTICATED"
	CodeForbidden       Code = "FORBIDDEN"
	CodeNotFound        Code = "NOT_FOUND"
	CodeInvalid         Code = "INVALID"
	CodeInternal        Code = "INTERNAL"
)

// apiError is an error whose message is safe to show.
type apiError struct {
	code Code
	msg  string
}

func (e *apiError) Error() string { return e.msg }

var (
	errUnauthenticated = &apiError{CodeUnauthenticated, "sign in first"}
	errReadOnlyToken   = &apiError{CodeForbidden, "this API token is read-only"}
	errAdminOnly       = &apiError{CodeForbidden, "only admins can do this"}
	errNotFound        = &apiError{CodeNotFound, "not found"}
)

func forbidden(format string, a ...any) error {
	return &apiError{CodeForbidden, fmt.Sprintf(format, a...)}
}

func invalid(format string, a ...any) error {
	return &apiError{CodeInvalid, fmt.Sprintf(format, a...)}
}

// presentError maps every error to the one shape: a safe message and a code.
// Anything unexpected is logged (redacted) and shown as "internal error".
func (h *api) presentError(ctx context.Context, err error) *gqlerror.Error {
	out := graphql.DefaultErrorPresenter(ctx, err)
	code, msg := h.classify(ctx, err)
	out.Message = msg
	out.Extensions = map[string]any{"code": string(code)}
	return out
}

func (h *api) classify(ctx context.Context, err error) (Code, string) {
	var ae *apiError
	var ge *gqlerror.Error
	fe, isFault := fault.As(err)
	switch {
	case errors.As(err, &ae):
		return ae.code, ae.msg
	case isFault && fe.Kind != fault.Internal:
		return codeOf(fe.Kind), fe.Public
	case errors.Is(err, scalar.ErrInvalidID):
		return CodeInvalid, scalar.ErrInvalidID.Error()
	case ent.IsNotFound(err):
		return CodeNotFound, "not found"
	case ent.IsValidationError(err):
		return CodeInvalid, "invalid input"
	case ent.IsConstraintError(err):
		return CodeInvalid, "conflicts with an existing record"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return CodeInternal, "request cancelled or timed out"
	case errors.As(err, &ge) && ge.Err == nil:
		// gqlgen's own errors: parse, validation, complexity, argument coercion.
		return CodeInvalid, ge.Message
	}
	var path string
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		path = fc.Path().String()
	}
	h.log.Error("graphql resolver failed", "path", path, "err", redact.Error(err))
	return CodeInternal, "internal error"
}

// codeOf maps a fault kind to its GraphQL code, once for every resolver.
func codeOf(k fault.Kind) Code {
	switch k {
	case fault.NotFound:
		return CodeNotFound
	case fault.Invalid, fault.Conflict:
		return CodeInvalid
	case fault.Unauthorized:
		return CodeUnauthenticated
	case fault.Forbidden:
		return CodeForbidden
	default:
		return CodeInternal
	}
}

func (h *api) recoverPanic(ctx context.Context, v any) error {
	h.log.Error("graphql resolver panicked", "panic", redact.String(fmt.Sprint(v)), "stack", string(debug.Stack()))
	return &apiError{CodeInternal, "internal error"}
}
