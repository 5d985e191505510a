package storetest

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store"
)

// PlanConn is a connection of db for Plan, closed when tb ends; on
// PostgreSQL with sequential scans off, so a plan shows the index PostgreSQL
// would use on a table too small to bother (a Seq Scan only where no index
// can serve).
func PlanConn(tb testing.TB, db *store.DB) *sql.Conn {
	tb.Helper()
	ctx := context.Background()
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	if db.Postgres() {
		if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
			tb.Fatal(err)
		}
	}
	return conn
}

// Plan is the plan db gives q on conn, a line per step, trimmed of its
// indentation and PostgreSQL's "->": EXPLAIN QUERY PLAN on SQLite ("SEARCH
// t USING …", "SCAN t"), EXPLAIN on PostgreSQL ("Index Scan using i on t",
// "Index Cond: …"); conn from PlanConn.
func Plan(tb testing.TB, db *store.DB, conn *sql.Conn, q string, args ...any) []string {
	tb.Helper()
	explain := "EXPLAIN QUERY PLAN "
	if db.Postgres() {
		explain = "EXPLAIN "
	}
	rows, err := conn.QueryContext(context.Background(), explain+q, args...)
	if err != nil {
		tb.Fatalf("explain %s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		tb.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		var line string
		switch v := vals[len(vals)-1].(type) {
		case string:
			line = v
		case []byte:
			line = string(v)
		}
		plan = append(plan, strings.TrimLeft(strings.TrimSpace(line), "-> "))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return plan
}
