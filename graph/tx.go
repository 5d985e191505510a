package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/chakshu-dev/chakshu/ent"
	entgql "github.com/chakshu-dev/chakshu/graph/entgqlrt"
)

// ownWrites are mutations that run outside the request transaction: they
// write through shared helpers on the store (runstate.Enqueue, intake.RetryWebhookEvent) or
// call GitHub between reads and writes. On SQLite an open write transaction
// would block those writes, and every other writer, for as long as it lasts.
var ownWrites = map[string]bool{"requestReview": true, "retryWebhookEvent": true}

// mutationTx runs each mutation operation in one transaction
// (entgql.Transactioner; resolvers use ent.FromContext), unless it contains a
// mutation that manages its own writes.
type mutationTx struct{ client *ent.Client }

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = mutationTx{}

func (mutationTx) ExtensionName() string                   { return "ChakshuMutationTx" }
func (mutationTx) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse implements graphql.ResponseInterceptor.
func (t mutationTx) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	oc := graphql.GetOperationContext(ctx)
	if oc == nil || oc.Operation == nil || oc.Operation.Operation != "mutation" {
		return next(ctx)
	}
	for _, f := range graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Mutation"}) {
		if ownWrites[f.Name] {
			return next(ctx)
		}
	}
	return entgql.Transactioner{TxOpener: t.client}.InterceptResponse(ctx, next)
}

// clientFrom is the request's transactional client when there is one.
func (h *api) clientFrom(ctx context.Context) *ent.Client {
	if c := ent.FromContext(ctx); c != nil {
		return c
	}
	return h.client
}

// afterCommit runs fn once the request's transaction commits (at once when
// there is none): wake-ups must not reach a worker before the change is visible.
func afterCommit(ctx context.Context, fn func()) {
	tx := ent.TxFromContext(ctx)
	if tx == nil {
		fn()
		return
	}
	tx.OnCommit(func(next ent.Committer) ent.Committer {
		return ent.CommitFunc(func(ctx context.Context, tx *ent.Tx) error {
			err := next.Commit(ctx, tx)
			if err == nil {
				fn()
			}
			return err
		})
	})
}
