package security

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chakshu-dev/chakshu/internal/store"
	"github.com/chakshu-dev/chakshu/internal/store/storetest"
)

// TestQueryCostPricesListsAndRefusesBeforeRunning: the review's queries,
// node{timeline{run{timeline{…}}}} five levels deep (42,130 SQL statements
// in 16 s) and nodes(ids:[×100]) with nested lists, are refused before
// they run (no SQL beyond the request's access look-up), as is nodes with
// more than 100 ids; a big page the portal could ask for stays within a
// statement budget.
func TestQueryCostPricesListsAndRefusesBeforeRunning(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		alice := w.Login("alice")
		admin := w.Login("carol")
		runID := fmt.Sprint(w.runAPI.ID)
		nest := "id"
		for i := 0; i < 5; i++ {
			nest = fmt.Sprintf("timeline { id run { %s } }", nest)
		}
		ids := make([]string, 100)
		for i := range ids {
			ids[i] = fmt.Sprintf("%q", runID)
		}
		refused := map[string]string{
			"timeline nested five deep":   fmt.Sprintf(`{ node(id: %q) { ... on Run { %s } } }`, runID, nest),
			"100 nodes with nested lists": fmt.Sprintf(`{ nodes(ids: [%s]) { ... on Run { timeline { run { timeline { id message } } } } } }`, strings.Join(ids, ",")),
			"101 nodes":                   fmt.Sprintf(`{ nodes(ids: [%s, %q]) { id } }`, strings.Join(ids, ","), runID),
			"lists under a page":          `{ runs(first: 100) { edges { node { learningsApplied { id } timeline { run { learningsApplied { id } } } } } } }`,
		}
		for name, q := range refused {
			for _, c := range []*clientT{{"alice", alice}, {"carol", admin}} {
				before := w.Stmts.Count()
				r := c.c.Do(q, nil)
				n := w.Stmts.Count() - before
				if r.Code() != "INVALID" || !strings.Contains(r.Raw, "over the budget") && !strings.Contains(r.Raw, "at most 100 ids") {
					t.Errorf("%s: %s: %.200s, want refused over budget", c.name, name, r.Raw)
				}
				if n > 1 {
					t.Errorf("%s: %s: %d SQL statements for a refused query, want none", c.name, name, n)
				}
			}
		}
		// Within budget: the statements a request makes stay bounded by its
		// shape, not by the number of rows (eager loading, no N+1).
		for i := 0; i < 30; i++ {
			db.Run.Create().SetRepository(w.api).SetReviewer(w.security).SetTrigger("comment").SetPrNumber(100 + i).
				SetHeadSha(strings.Repeat("b", 40)).SaveX(t.Context())
		}
		q := `{ runs(first: 100) { totalCount edges { node { id prTitle repository { fullName } reviewer { name }
			findings(first: 20) { totalCount edges { node { id title } } } } } } }`
		before := w.Stmts.Count()
		var d struct{ Runs struct{ TotalCount int } }
		admin.Do(q, nil).OK(t, &d)
		if n := w.Stmts.Count() - before; n > 12 {
			t.Errorf("a page of %d runs with their repository, reviewer and findings took %d SQL statements, want at most 12", d.Runs.TotalCount, n)
		}
	})
}
