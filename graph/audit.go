package graph

import (
	"context"

	"entgo.io/ent/dialect/sql"

	"github.com/chakshu-dev/chakshu/ent"
	"github.com/chakshu-dev/chakshu/ent/auditentry"
	"github.com/chakshu-dev/chakshu/ent/predicate"
	entgql "github.com/chakshu-dev/chakshu/graph/entgqlrt"
)

// auditP: the audit entries of the installations the viewer administers
// (global admins: all, including those outside any installation).
func (a *access) auditP() predicate.AuditEntry {
	ids := make([]int, 0, len(a.adminInst))
	for id := range a.adminInst {
		ids = append(ids, id)
	}
	return func(s *sql.Selector) { s.Where(inInts(s, auditentry.FieldInstallationID, ids)) }
}

// auditLog pages the audit log, newest first unless orderBy says otherwise:
// admins only; an organisation owner sees their installation's entries.
func (h *api) auditLog(ctx context.Context, after *entgql.Cursor[int], first *int, before *entgql.Cursor[int], last *int,
	orderBy *ent.AuditEntryOrder, where *ent.AuditEntryWhereInput) (*ent.AuditEntryConnection, error) {
	v, err := viewer(ctx)
	if err != nil {
		return nil, err
	}
	if !v.AnyAdmin() {
		return nil, errAdminOnly
	}
	if orderBy == nil {
		orderBy = &ent.AuditEntryOrder{Direction: entgql.OrderDirectionDesc, Field: ent.AuditEntryOrderFieldCreatedAt}
	}
	return h.clientFrom(ctx).AuditEntry.Query().Paginate(ctx, after, first, before, last,
		ent.WithAuditEntryOrder(orderBy), ent.WithAuditEntryFilter(where.Filter))
}
