package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
)

// gatedDriver is ent's driver on SQLite with each write taking its turn at
// the write gate (writegate.go): a statement that writes holds the turn
// while it runs (an INSERT … RETURNING, which ent sends as a query, until
// its rows are closed: SQLite commits it then), and a transaction from its
// BEGIN, which takes SQLite's write lock at once (store.SQLiteDSN:
// _txlock=immediate), to its COMMIT or ROLLBACK. Reads outside a
// transaction never wait.
type gatedDriver struct {
	*entsql.Driver
	gate *writeGate
}

var _ dialect.Driver = (*gatedDriver)(nil)

// writes says whether a statement ent sends outside a transaction writes.
func writes(query string) bool {
	verb, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	switch strings.ToUpper(verb) {
	case "INSERT", "UPDATE", "DELETE", "REPLACE":
		return true
	}
	return false
}

// Exec implements dialect.ExecQuerier.
func (d *gatedDriver) Exec(ctx context.Context, query string, args, v any) error {
	if err := d.gate.lock(ctx); err != nil {
		return err
	}
	defer d.gate.unlock()
	return d.Driver.Exec(ctx, query, args, v)
}

// ExecContext is what ent's generated client calls for raw SQL.
func (d *gatedDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := d.gate.lock(ctx); err != nil {
		return nil, err
	}
	defer d.gate.unlock()
	return d.Driver.ExecContext(ctx, query, args...)
}

// Query implements dialect.ExecQuerier.
func (d *gatedDriver) Query(ctx context.Context, query string, args, v any) error {
	if !writes(query) {
		return d.Driver.Query(ctx, query, args, v)
	}
	if err := d.gate.lock(ctx); err != nil {
		return err
	}
	if err := d.Driver.Query(ctx, query, args, v); err != nil {
		d.gate.unlock()
		return err
	}
	rows := v.(*entsql.Rows) // entsql.Conn.Query took it as one
	rows.ColumnScanner = &releasingRows{ColumnScanner: rows.ColumnScanner, release: sync.OnceFunc(d.gate.unlock)}
	return nil
}

// releasingRows gives the turn back when the rows are closed.
type releasingRows struct {
	entsql.ColumnScanner
	release func()
}

func (r *releasingRows) Close() error {
	defer r.release()
	return r.ColumnScanner.Close()
}

// Tx implements dialect.Driver.
func (d *gatedDriver) Tx(ctx context.Context) (dialect.Tx, error) { return d.BeginTx(ctx, nil) }

// BeginTx is what ent's generated client calls for a transaction with options.
func (d *gatedDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	if err := d.gate.lock(ctx); err != nil {
		return nil, err
	}
	tx, err := d.Driver.BeginTx(ctx, opts)
	if err != nil {
		d.gate.unlock()
		return nil, err
	}
	release := sync.OnceFunc(d.gate.unlock)
	// database/sql rolls the transaction back when ctx ends; the turn goes
	// with it.
	stop := context.AfterFunc(ctx, release)
	return &gatedTx{Tx: tx.(*entsql.Tx), release: func() { stop(); release() }}, nil
}

// gatedTx gives the turn back at its end.
type gatedTx struct {
	*entsql.Tx
	release func()
}

func (t *gatedTx) Commit() error {
	defer t.release()
	return t.Tx.Commit()
}

func (t *gatedTx) Rollback() error {
	defer t.release()
	return t.Tx.Rollback()
}
