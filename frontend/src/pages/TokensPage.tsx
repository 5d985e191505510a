// API tokens for internal dashboards: create (the secret is shown once), revoke.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql, getFragmentData, type FragmentType } from '../gql';
import type { ApiTokenScope } from '../gql/graphql';
import { Dialog } from '../components/Dialog';
import { Pager } from '../components/Pager';
import { ActionError, Empty, ErrorState, Loading } from '../components/States';
import { ago, dayEnd, formatTime } from '../lib/format';
import { useSession } from '../lib/session';
import { useUrlState } from '../lib/url';
import { pageVars } from './RunsPage';

const TokenRowFragment = graphql(`
  fragment TokenRow_token on APIToken {
    id
    name
    prefix
    scope
    createdAt
    lastUsedAt
    expiresAt
    revokedAt
    owner {
      id
      login
    }
  }
`);

export const TokensPageQuery = graphql(`
  query TokensPage($first: Int, $after: Cursor, $last: Int, $before: Cursor) {
    apiTokens(first: $first, after: $after, last: $last, before: $before, orderBy: { field: CREATED_AT, direction: DESC }) {
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
          ...TokenRow_token
        }
      }
    }
  }
`);

const CreateTokenMutation = graphql(`
  mutation CreateAPIToken($input: CreateAPITokenInput!) {
    createAPIToken(input: $input) {
      token
      apiToken {
        id
        ...TokenRow_token
      }
    }
  }
`);

const RevokeTokenMutation = graphql(`
  mutation RevokeAPIToken($id: ID!) {
    revokeAPIToken(id: $id) {
      id
      revokedAt
    }
  }
`);

function TokenRow(props: { token: FragmentType<typeof TokenRowFragment>; showOwner: boolean }) {
  const t = getFragmentData(TokenRowFragment, props.token);
  const [res, revoke] = useMutation(RevokeTokenMutation);
  const expired = t.expiresAt != null && Date.parse(t.expiresAt) < Date.now();
  const state = t.revokedAt ? 'revoked' : expired ? 'expired' : 'active';
  return (
    <tr className={state === 'active' ? undefined : 'dim'}>
      <td>
        {t.name}
        <div className="sub mono">{t.prefix}…</div>
      </td>
      {props.showOwner && <td>{t.owner.login}</td>}
      <td>{t.scope}</td>
      <td>
        <span title={formatTime(t.createdAt)}>{ago(t.createdAt)}</span>
      </td>
      <td>{t.lastUsedAt ? ago(t.lastUsedAt) : 'never'}</td>
      <td>{t.expiresAt ? formatTime(t.expiresAt) : 'never'}</td>
      <td>
        {state === 'active' ? (
          <button
            type="button"
            className="danger small"
            disabled={res.fetching}
            onClick={() => {
              if (window.confirm(`Revoke the token “${t.name}”? Anything using it stops working.`)) revoke({ id: t.id });
            }}
          >
            Revoke
          </button>
        ) : (
          <span className="badge">{state}</span>
        )}
        <ActionError error={res.error} />
      </td>
    </tr>
  );
}

/** The new token, shown once: after closing, only its prefix remains. */
export function ShownOnce({ token, onClose }: { token: string; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <Dialog title="Your new API token" onClose={onClose}>
      <p>
        Copy it now: <strong>it will not be shown again</strong>. Chakshu keeps only a hash.
      </p>
      <input className="mono token-value" readOnly value={token} aria-label="API token" onFocus={(e) => e.currentTarget.select()} />
      <p className="muted">Use it as <code>Authorization: Bearer {token.slice(0, 9)}…</code> on /graphql.</p>
      <div className="toolbar">
        <button
          type="button"
          onClick={() => {
            navigator.clipboard?.writeText(token).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}

export default function TokensPage() {
  const { viewer } = useSession();
  const [page, setPage] = useUrlState(['after', 'before'] as const);
  const [res, reexecute] = useQuery({ query: TokensPageQuery, variables: pageVars(page, 25) });
  const [created, create] = useMutation(CreateTokenMutation);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<ApiTokenScope>('read');
  const [expires, setExpires] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const edges = res.data?.apiTokens.edges ?? [];

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    const r = await create({ input: { name: name.trim(), scope, expiresAt: dayEnd(expires) ?? undefined } });
    if (r.data?.createAPIToken) {
      setSecret(r.data.createAPIToken.token);
      setName('');
      setExpires('');
      reexecute({ requestPolicy: 'network-only' });
    }
  };

  return (
    <div className="page">
      <h1>API tokens</h1>
      <p className="muted">For internal dashboards and scripts: send as a Bearer token to /graphql. A read token cannot change anything.</p>
      <p className="muted">
        {/* A plain link: the explorer is its own page (its own script), not a portal route. */}
        Try queries and read the schema's documentation in the <a href="/graphql">GraphQL explorer</a>, signed in as you or with a token pasted as an{' '}
        <code>Authorization: Bearer</code> header.
      </p>
      {viewer.canWrite && (
        <form className="filters" onSubmit={submit} aria-label="Create an API token">
          <label>
            Name
            <input name="name" required value={name} onChange={(e) => setName(e.target.value)} placeholder="grafana" maxLength={100} />
          </label>
          <label>
            Scope
            <select name="scope" value={scope} onChange={(e) => setScope(e.target.value as ApiTokenScope)}>
              <option value="read">read</option>
              <option value="write">write</option>
            </select>
          </label>
          <label>
            Expires on (default: 90 days from today)
            <input type="date" name="expires" value={expires} onChange={(e) => setExpires(e.target.value)} />
          </label>
          <button type="submit" className="primary" disabled={created.fetching || !name.trim()}>
            Create token
          </button>
        </form>
      )}
      <ActionError error={created.error} />
      {secret && <ShownOnce token={secret} onClose={() => setSecret(null)} />}
      {res.error && !res.data ? (
        <ErrorState error={res.error} retry={() => reexecute({ requestPolicy: 'network-only' })} />
      ) : !res.data ? (
        <Loading label="Loading tokens…" />
      ) : edges.length === 0 ? (
        <Empty title="No API tokens">Create one above for a dashboard or script.</Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  {viewer.isAdmin && <th scope="col">Owner</th>}
                  <th scope="col">Scope</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>{edges.map((e) => e?.node && <TokenRow key={e.node.id} token={e.node} showOwner={viewer.isAdmin} />)}</tbody>
            </table>
          </div>
          <Pager pageInfo={res.data.apiTokens.pageInfo} totalCount={res.data.apiTokens.totalCount} shown={edges.length} label="tokens" onPage={(p) => setPage({ after: p.after ?? null, before: p.before ?? null })} />
        </>
      )}
    </div>
  );
}
