// Cursor pagination controls for a Relay connection.
export interface PageInfoLike {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor?: string | null;
  endCursor?: string | null;
}

export function Pager({ pageInfo, totalCount, shown, onPage, label = 'items', prevLabel = '← Newer', nextLabel = 'Older →' }: {
  pageInfo: PageInfoLike;
  totalCount?: number;
  shown: number;
  onPage: (dir: { after?: string; before?: string }) => void;
  label?: string;
  /** Button texts; lists not in time order say Previous / Next. */
  prevLabel?: string;
  nextLabel?: string;
}) {
  return (
    <nav className="pager" aria-label="Pagination">
      <span className="muted">
        {shown} shown{totalCount != null ? ` of ${totalCount} ${label}` : ''}
      </span>
      <button type="button" disabled={!pageInfo.hasPreviousPage || !pageInfo.startCursor} onClick={() => onPage({ before: pageInfo.startCursor ?? undefined })}>
        {prevLabel}
      </button>
      <button type="button" disabled={!pageInfo.hasNextPage || !pageInfo.endCursor} onClick={() => onPage({ after: pageInfo.endCursor ?? undefined })}>
        {nextLabel}
      </button>
    </nav>
  );
}
