// The admin audit log: who retried, cancelled, asked for reviews, changed
// credentials, tokens and budgets. Admins only (the server checks it too).
import { useQuery } from 'urql';
import { graphql } from '../gql';
import { Pager } from '../components/Pager';
import { Empty, ErrorState, Loading } from '../components/States';
import { ago, formatTime } from '../lib/format';
import { useUrlState } from '../lib/url';
import { pageVars } from './RunsPage';

export const AuditPageQuery = graphql(`
  query AuditPage($first: Int, $after: Cursor, $last: Int, $before: Cursor, $where: AuditEntryWhereInput) {
    auditLog(first: $first, after: $after, last: $last, before: $before, where: $where, orderBy: { field: CREATED_AT, direction: DESC }) {
      totalCount
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
      edges {
        node {
          id
          createdAt
          actor
          action
          installationID
          target
          detail
        }
      }
    }
  }
`);

/** The actions the server records (internal/audit), for the filter. */
export const AUDIT_ACTIONS = [
  'run.cancel',
  'review.request',
  'webhook.retry',
  'credential.set',
  'credential.delete',
  'token.create',
  'token.revoke',
  'budget.set',
  'installation.reviewers_repo',
  'installation.reviewers_sync',
  'learning.enable',
  'learning.disable',
  'repository.onboarding',
] as const;

/** The where-input of the filters: only what is set. */
export function auditWhere(action: string, actor: string) {
  const w: { action?: string; actorContainsFold?: string } = {};
  if (action) w.action = action;
  if (actor.trim()) w.actorContainsFold = actor.trim();
  return Object.keys(w).length ? w : undefined;
}

export default function AuditPage() {
  const [state, setState] = useUrlState(['action', 'actor', 'after', 'before'] as const);
  const action = state.action ?? '';
  const actor = state.actor ?? '';
  const [res, reexecute] = useQuery({
    query: AuditPageQuery,
    variables: { ...pageVars(state, 50), where: auditWhere(action, actor) },
  });
  const edges = res.data?.auditLog.edges ?? [];
  const filter = (next: { action?: string; actor?: string }) => setState({ ...next, after: null, before: null });

  return (
    <div className="page">
      <h1>Audit log</h1>
      <p className="muted">Every admin action, written together with the action itself. Organisation owners see their installation's entries.</p>
      <form className="filters" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <label>
          Action
          <select name="action" value={action} onChange={(e) => filter({ action: e.target.value })}>
            <option value="">any</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Who
          <input name="actor" value={actor} placeholder="login" onChange={(e) => filter({ actor: e.target.value })} />
        </label>
      </form>
      {res.error && !res.data ? (
        <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} />
      ) : !res.data ? (
        <Loading label="Loading the audit log…" />
      ) : edges.length === 0 ? (
        <Empty title="No audit entries">{action || actor ? 'Nothing matches these filters.' : 'Admin actions will be listed here.'}</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">On</th>
                  <th scope="col">Change</th>
                </tr>
              </thead>
              <tbody>
                {edges.map(
                  (e) =>
                    e?.node && (
                      <tr key={e.node.id}>
                        <td>
                          <span title={formatTime(e.node.createdAt)}>{ago(e.node.createdAt)}</span>
                        </td>
                        <td>{e.node.actor}</td>
                        <td>
                          <code>{e.node.action}</code>
                        </td>
                        <td>{e.node.target}</td>
                        <td className="muted">{e.node.detail}</td>
                      </tr>
                    ),
                )}
              </tbody>
            </table>
          </div>
          <Pager
            pageInfo={res.data.auditLog.pageInfo}
            totalCount={res.data.auditLog.totalCount}
            shown={edges.length}
            label="entries"
            onPage={(p) => setState({ after: p.after ?? null, before: p.before ?? null })}
          />
        </>
      )}
    </div>
  );
}
