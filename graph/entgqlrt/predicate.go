package entgqlrt

import (
	"entgo.io/ent/dialect/sql"
)

// CursorsPredicate turns the after and before cursors of a page into WHERE
// predicates on rows ordered by (field, idField) in direction: rows past a
// cursor (greater for ASC, less for DESC). A cursor without a value compares
// the id alone. The direction applies to both cursors; the generated pager
// passes the direction it reads in (reversed for `last`).
func CursorsPredicate[T any](after, before *Cursor[T], idField, field string, direction OrderDirection) []func(s *sql.Selector) {
	var preds []func(s *sql.Selector)
	for _, c := range [...]*Cursor[T]{after, before} {
		if c == nil {
			continue
		}
		if c.Value == nil {
			if direction == OrderDirectionAsc {
				preds = append(preds, sql.FieldGT(idField, c.ID))
			} else {
				preds = append(preds, sql.FieldLT(idField, c.ID))
			}
			continue
		}
		compare := sql.CompositeLT
		if direction == OrderDirectionAsc {
			compare = sql.CompositeGT
		}
		id, value := c.ID, c.Value
		preds = append(preds, func(s *sql.Selector) {
			s.Where(sql.P(func(b *sql.Builder) {
				// Resolved when the query is built: an order term may have
				// selected the column under a join, so prefer an unambiguous
				// selection of that name to the table's own column.
				col := s.C(field)
				if sel := s.FindSelection(field); len(sel) == 1 {
					col = sel[0]
				}
				b.Join(compare([]string{col, s.C(idField)}, value, id))
			}))
		})
	}
	return preds
}

// LimitPerRow is a query modifier that keeps at most limit rows per value of
// the partitionBy column (the parent's foreign key), in the order of
// orderBy: how a nested connection with `first: N` under a list of parents
// is loaded in one query rather than one per parent. The selector becomes
//
//	WITH src_query AS (<selector>),
//	     limited_query AS (SELECT *, ROW_NUMBER() OVER (PARTITION BY partitionBy ORDER BY orderBy) AS row_number FROM src_query)
//	SELECT <its columns> FROM limited_query AS <its table> WHERE row_number <= limit
func LimitPerRow(partitionBy string, limit int, orderBy ...sql.Querier) func(s *sql.Selector) {
	return func(s *sql.Selector) {
		d := sql.Dialect(s.Dialect())
		s.SetDistinct(false)
		numbered := d.Select("*").
			AppendSelectExprAs(sql.RowNumber().PartitionBy(partitionBy).OrderExpr(orderBy...), "row_number").
			From(d.Table("src_query"))
		with := d.With("src_query").As(s.Clone()).With("limited_query").As(numbered)
		limited := d.Table("limited_query").As(s.TableName())
		*s = *d.Select(s.UnqualifiedColumns()...).
			From(limited).
			Where(sql.LTE(limited.C("row_number"), limit)).
			Prefix(with)
	}
}
