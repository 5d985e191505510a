package runstats

import "github.com/chakshu-dev/chakshu/internal/store"

// CountRunsSQL is CountRuns's statement for s (rebound) and its arguments.
func CountRunsSQL(sdb *store.DB, s RunSet) (string, []any) { return conn{sdb}.countRuns(s) }
