package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/chakshu-dev/chakshu/internal/store"
)

// RollupCells reads every cell of cost_rollups as text, keyed by grain, day,
// repository and reviewer.
func RollupCells(t testing.TB, db *store.DB) map[string]string {
	t.Helper()
	cols := strings.Join(store.RollupSums, ", ")
	rows, err := db.SQL.QueryContext(context.Background(), "SELECT grain, day, repository_id, reviewer_id, "+cols+" FROM cost_rollups")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var grain, day string
		var repo, rev int64
		vals := make([]any, len(store.RollupSums))
		ptrs := []any{&grain, &day, &repo, &rev}
		for i := range vals {
			ptrs = append(ptrs, &vals[i])
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		zero := true
		var b strings.Builder
		for i, v := range vals {
			s := fmt.Sprint(v)
			if f, ok := v.(float64); ok {
				s = fmt.Sprintf("%.6f", f)
			}
			if s != "0" && s != "0.000000" {
				zero = false
			}
			fmt.Fprintf(&b, "%s=%s ", store.RollupSums[i], s)
		}
		if !zero { // a cell emptied by subtraction equals an absent one
			out[fmt.Sprintf("%s|%s|%d|%d", grain, day, repo, rev)] = b.String()
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// CheckRollupExact asserts the rollup equals a rebuild from the runs (and the
// ledger of pruned runs), leaving the rebuilt one in place.
func CheckRollupExact(t testing.TB, db *store.DB) {
	t.Helper()
	kept := RollupCells(t, db)
	if err := db.RebuildRollup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(RollupCells(t, db), kept); diff != "" {
		t.Fatalf("the trigger-kept rollup differs from a rebuild (-rebuilt +kept):\n%s", diff)
	}
}
