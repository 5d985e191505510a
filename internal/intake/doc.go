// Package intake writes GitHub's webhook deliveries to the webhook_events
// table before the delivery is answered: a group commit that answers each
// delivery once its row is durable, the SQLite writer with the checkpointer
// that keeps the WAL short, the PostgreSQL writer, and an admin's retry of
// a failed event.
package intake

import "github.com/chakshu-dev/chakshu/internal/store"

// conn is the store these functions work on, with its helpers.
type conn struct{ *store.DB }
