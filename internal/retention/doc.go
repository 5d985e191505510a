// Package retention prunes what the database no longer needs to keep
// (docs/production.md, Retention): handled webhook payloads and events,
// failed events, run timelines, finished runs (their cost figures kept in the
// rollup's ledger of pruned runs, which package store creates and adds back
// on a rebuild) and silent worker rows, in small write transactions.
package retention

import "github.com/chakshu-dev/chakshu/internal/store"

// conn is the store these functions work on, with its helpers.
type conn struct{ *store.DB }
