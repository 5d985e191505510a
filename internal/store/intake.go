package store

import (
	"context"
	"fmt"
)

// migrateIntake tunes the storage of webhook payloads on PostgreSQL: lz4
// compression for webhook_events.payload instead of the default pglz. A
// payload is 10–25 KB of JSON, so PostgreSQL compresses every one it stores;
// pglz costs about four times lz4's CPU for the same size, which on a small
// machine is a large share of the webhook intake's budget (DESIGN §11). Rows
// already stored keep their compression; both read back the same.
//
// lz4 needs PostgreSQL 14 or later built with it; elsewhere this changes
// nothing. It runs under Migrate's advisory lock and only when needed (the
// ALTER takes a short exclusive lock on the table).
func (db *DB) migrateIntake(ctx context.Context) error {
	if !db.Postgres() {
		return nil
	}
	var method string
	err := db.SQL.QueryRowContext(ctx, `SELECT attcompression::text FROM pg_attribute
		WHERE attrelid = 'webhook_events'::regclass AND attname = 'payload'`).Scan(&method)
	if err != nil || method == "l" {
		return nil // before PostgreSQL 14 there is no attcompression; "l" is lz4 already
	}
	var lz4 bool
	if err := db.SQL.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_settings
		WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))`).Scan(&lz4); err != nil || !lz4 {
		return nil // this server was built without lz4
	}
	if _, err := db.W.ExecContext(ctx, `ALTER TABLE webhook_events ALTER COLUMN payload SET COMPRESSION lz4`); err != nil {
		return fmt.Errorf("migrate: webhook payload compression: %w", err)
	}
	return nil
}
