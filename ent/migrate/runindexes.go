package migrate

import "entgo.io/ent/dialect/sql/schema"

// Indexes ent's schema cannot declare: ent puts an index's edge columns after
// its field columns, and the portal's runs page needs the repository or the
// reviewer first, equality columns before the order (created_at, id), so
// `WHERE repository_runs = ? [AND status = ?] ORDER BY created_at DESC, id DESC
// LIMIT n` reads n index entries, and COUNT(*) of that filter is a range of one
// index. Written by hand (not generated); the migration creates them like
// every other index.
func init() {
	col := func(name string) *schema.Column {
		for _, c := range RunsColumns {
			if c.Name == name {
				return c
			}
		}
		panic("runs has no column " + name)
	}
	add := func(name string, cols ...string) {
		idx := &schema.Index{Name: name}
		for _, c := range cols {
			idx.Columns = append(idx.Columns, col(c))
		}
		RunsTable.Indexes = append(RunsTable.Indexes, idx)
	}
	add("run_repository_status_created_at_id", "repository_runs", "status", "created_at", "id")
	add("run_repository_created_at_id", "repository_runs", "created_at", "id")
	add("run_reviewer_status_created_at_id", "reviewer_runs", "status", "created_at", "id")
	add("run_reviewer_created_at_id", "reviewer_runs", "created_at", "id")
}
