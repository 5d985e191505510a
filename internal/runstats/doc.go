// Package runstats is the read model over runs that the portal's cost and
// quality pages read: cost figures (sums and duration percentiles) per
// period, repository, reviewer or provider, from the trigger-kept cost rollup
// or from the runs; run counts and the most expensive pull requests; and how
// often findings were accepted, per reviewer, repository, category or
// severity.
package runstats

import "github.com/chakshu-dev/chakshu/internal/store"

// conn is the store these functions work on, with its helpers.
type conn struct{ *store.DB }
