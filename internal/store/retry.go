package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// retryAttempts bounds how often Retry runs a piece of work that PostgreSQL
// aborted to break a deadlock or a serialization conflict.
const retryAttempts = 4

// Retryable reports whether err is PostgreSQL aborting a transaction that
// may succeed if run again: a deadlock it broke (40P01) or a serialization
// failure (40001). Nothing of the aborted transaction was kept, so running it
// again is safe. PostgreSQL's manual, §13.5 "Serialization Failure
// Handling", tells applications to retry 40001 and advises retrying 40P01;
// SQLite waits on its busy timeout instead and never reports these.
func Retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40P01" || pg.Code == "40001")
}

// Retry runs fn, and again (up to retryAttempts in all, after a short
// jittered pause) while it fails with a Retryable error. fn must be whole
// work that keeps nothing from an aborted attempt: one statement, or a
// transaction of its own that it begins.
func Retry(ctx context.Context, fn func() error) error {
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt == retryAttempts || !Retryable(err) {
			return err
		}
		// The other transaction holds its locks until it ends: give it a
		// moment, more each time, jittered so two retries do not meet again.
		pause := time.Duration(attempt)*10*time.Millisecond + rand.N(10*time.Millisecond)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}
