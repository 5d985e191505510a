package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// splitDriver is ent's driver on SQLite: statements that write, and every
// transaction, go to the write connection (the embedded driver); reads
// outside a transaction go to the read pool, so they never wait for a write.
type splitDriver struct {
	*entsql.Driver
	read *entsql.Driver
}

var _ dialect.Driver = (*splitDriver)(nil)

// writes says whether a statement ent sends as a query writes (an INSERT
// with RETURNING).
func writes(query string) bool {
	verb, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	switch strings.ToUpper(verb) {
	case "INSERT", "UPDATE", "DELETE", "REPLACE":
		return true
	}
	return false
}

// Query implements dialect.ExecQuerier.
func (d *splitDriver) Query(ctx context.Context, query string, args, v any) error {
	if writes(query) {
		return d.Driver.Query(ctx, query, args, v)
	}
	return d.read.Query(ctx, query, args, v)
}

// QueryContext is what ent's generated client calls for raw SQL.
func (d *splitDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if writes(query) {
		return d.Driver.QueryContext(ctx, query, args...)
	}
	return d.read.QueryContext(ctx, query, args...)
}

// Close closes both pools.
func (d *splitDriver) Close() error { return errors.Join(d.Driver.Close(), d.read.Close()) }
