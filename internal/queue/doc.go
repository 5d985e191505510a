// Package queue is the one implementation of leases over Chakshu's queue
// tables (DESIGN §3): claiming the next due row of a queue (fairly across
// installations for queued runs), heartbeating held rows, releasing them,
// holding an installation's starts, and taking back the rows of dead workers.
// The queues are runs waiting to be dispatched or published, stored webhook
// events, and backtests. The indexes the claims read are created by package
// store's migration.
package queue

import "github.com/chakshu-dev/chakshu/internal/store"

// conn is the store these functions work on, with its helpers.
type conn struct{ *store.DB }
