package entgqlrt

import (
	"context"
	"database/sql/driver"

	"github.com/99designs/gqlgen/graphql"
)

// TxOpener opens a transaction and returns a context that carries it
// (ent's generated (*Client).OpenTx).
type TxOpener interface {
	OpenTx(ctx context.Context) (context.Context, driver.Tx, error)
}

// Transactioner runs a GraphQL response inside one transaction: committed
// when the response has no errors, rolled back when it has some or when a
// resolver panics. Only its InterceptResponse is used (graph/tx.go decides
// which operations get a transaction).
type Transactioner struct {
	TxOpener
}

// InterceptResponse implements graphql.ResponseInterceptor.
func (t Transactioner) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	txCtx, tx, err := t.OpenTx(ctx)
	if err != nil {
		return graphql.ErrorResponse(ctx, "cannot create transaction: %s", err.Error())
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	rsp := next(txCtx)
	if len(rsp.Errors) > 0 {
		// Data produced inside a rolled-back transaction is not returned.
		return &graphql.Response{Errors: rsp.Errors}
	}
	committed = true // a failed commit is not rolled back again
	if err := tx.Commit(); err != nil {
		return graphql.ErrorResponse(ctx, "cannot commit transaction: %s", err.Error())
	}
	return rsp
}
