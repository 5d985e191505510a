// Status: workers, queues, failed webhooks (with Retry for admins), GitHub limits, syncs.
import { useCallback, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql, getFragmentData, type FragmentType } from '../gql';
import { AdminOnly } from '../components/AdminOnly';
import { ActionError, Empty, ErrorState, Loading } from '../components/States';
import { ago, formatAge, formatTime, shortSha } from '../lib/format';
import { usePolling } from '../lib/poll';
import { useSession } from '../lib/session';

const StatusPageQuery = graphql(`
  query StatusPage {
    status {
      now
      failedWebhooks
      workers {
        alive
        heldRuns
        heldEvents
        worker {
          id
          workerID
          hostname
          pid
          version
          startedAt
          heartbeatAt
          stopped
        }
      }
      runQueues {
        status
        count
        oldestAt
        oldestAgeSeconds
      }
      webhookQueues {
        status
        count
        oldestAt
        oldestAgeSeconds
      }
      installations {
        id
        accountLogin
        reviewersRepo
        lastSyncAt
        lastSyncCommit
        lastSyncError
        syncRequestedAt
        resolveBlocked
        githubWaitUntil
        githubWaitReason
      }
      contentBudgets {
        installation {
          id
          accountLogin
        }
        windows {
          seconds
          limit
          available
        }
        newReviewsAt
      }
    }
    failed: webhookEvents(first: 20, where: { status: failed }, orderBy: { field: RECEIVED_AT, direction: DESC }) {
      totalCount
      edges {
        node {
          id
          ...FailedWebhook_event
        }
      }
    }
  }
`);

const FailedWebhookFragment = graphql(`
  fragment FailedWebhook_event on WebhookEvent {
    id
    deliveryID
    event
    action
    repository
    attempts
    lastError
    receivedAt
    status
  }
`);

const RetryWebhookMutation = graphql(`
  mutation RetryWebhook($id: ID!) {
    retryWebhookEvent(id: $id) {
      id
      status
      attempts
    }
  }
`);

function FailedWebhookRow(props: { event: FragmentType<typeof FailedWebhookFragment>; onRetried: (what: string) => void }) {
  const e = getFragmentData(FailedWebhookFragment, props.event);
  const { viewer } = useSession();
  const [retry, doRetry] = useMutation(RetryWebhookMutation);
  const queued = retry.data?.retryWebhookEvent && retry.data.retryWebhookEvent.status !== 'failed';
  return (
    <tr>
      <td>
        <code>{e.event}</code>
        {e.action && <span className="muted">.{e.action}</span>}
        <div className="sub mono">{e.deliveryID}</div>
      </td>
      <td>{e.repository || '—'}</td>
      <td>
        <time dateTime={e.receivedAt} title={formatTime(e.receivedAt)}>
          {ago(e.receivedAt)}
        </time>
      </td>
      <td className="num">{e.attempts}</td>
      <td className="error-text">{viewer.isAdmin ? e.lastError || '—' : <span className="muted">visible to admins</span>}</td>
      <AdminOnly>
        <td>
          {queued ? (
            <span className="badge posted" role="status">
              queued again
            </span>
          ) : (
            <button
              type="button"
              disabled={retry.fetching}
              onClick={() => doRetry({ id: e.id }).then((r) => !r.error && props.onRetried(`${e.event}${e.action ? '.' + e.action : ''} delivery ${e.deliveryID}`))}
              aria-label={`Retry ${e.event} delivery ${e.deliveryID}`}
            >
              {retry.fetching ? 'Retrying…' : 'Retry'}
            </button>
          )}
          <ActionError error={retry.error} />
        </td>
      </AdminOnly>
    </tr>
  );
}

export default function StatusPage() {
  const [res, reexecute] = useQuery({ query: StatusPageQuery });
  const [retried, setRetried] = useState<string[]>([]);
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  usePolling(refresh, 10000, true);
  const d = res.data;
  if (res.error && !d)
    return (
      <div className="page">
        <h1>Status</h1>
        <ErrorState error={res.error} retry={refresh} />
      </div>
    );
  if (!d)
    return (
      <div className="page">
        <h1>Status</h1>
        <Loading label="Checking status…" />
      </div>
    );
  const s = d.status;
  const failedEdges = d.failed.edges ?? [];
  return (
    <div className="page">
      <div className="page-head">
        <h1>Status</h1>
        <span className="muted">as of {formatTime(s.now)}</span>
      </div>

      <section aria-labelledby="queues-h">
        <h2 id="queues-h">Queues</h2>
        <dl className="totals">
          {s.runQueues.map((q) => (
            <div key={q.status}>
              <dt>Runs {q.status}</dt>
              <dd>
                {q.count}
                {q.count > 0 && <span className="muted"> · oldest {formatAge(q.oldestAgeSeconds)}</span>}
              </dd>
            </div>
          ))}
          {s.webhookQueues.map((q) => (
            <div key={q.status}>
              <dt>Webhooks {q.status}</dt>
              <dd>
                {q.count}
                {q.count > 0 && <span className="muted"> · oldest {formatAge(q.oldestAgeSeconds)}</span>}
              </dd>
            </div>
          ))}
          <div>
            <dt>Failed webhooks</dt>
            <dd className={s.failedWebhooks > 0 ? 'bad' : undefined}>{s.failedWebhooks}</dd>
          </div>
        </dl>
      </section>

      <section aria-labelledby="workers-h">
        <h2 id="workers-h">Workers</h2>
        {s.workers.length === 0 ? (
          <Empty title="No workers">Start one with <code>chakshu worker</code> (or <code>chakshu all</code>).</Empty>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Worker</th>
                  <th scope="col">State</th>
                  <th scope="col">Last heartbeat</th>
                  <th scope="col" className="num">
                    Runs held
                  </th>
                  <th scope="col" className="num">
                    Events held
                  </th>
                  <th scope="col" className="hide-narrow">
                    Version
                  </th>
                  <th scope="col" className="hide-narrow">
                    Started
                  </th>
                </tr>
              </thead>
              <tbody>
                {s.workers.map((w) => (
                  <tr key={w.worker.id}>
                    <td>
                      {w.worker.hostname} <span className="muted">pid {w.worker.pid}</span>
                      <div className="sub mono">{w.worker.workerID}</div>
                    </td>
                    <td>
                      <span className={`badge ${w.alive ? 'status-succeeded' : 'status-failed'}`}>{w.worker.stopped ? 'stopped' : w.alive ? 'alive' : 'silent'}</span>
                    </td>
                    <td>
                      <time dateTime={w.worker.heartbeatAt} title={formatTime(w.worker.heartbeatAt)}>
                        {ago(w.worker.heartbeatAt, Date.parse(s.now))}
                      </time>
                    </td>
                    <td className="num">{w.heldRuns}</td>
                    <td className="num">{w.heldEvents}</td>
                    <td className="hide-narrow mono">{w.worker.version}</td>
                    <td className="hide-narrow">{formatTime(w.worker.startedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="failed-h">
        <h2 id="failed-h">
          Failed webhooks {d.failed.totalCount > 0 && <span className="muted">({d.failed.totalCount})</span>}
        </h2>
        {retried.length > 0 && (
          <p className="callout" role="status">
            Queued again: {retried.join(', ')}. A worker will handle {retried.length === 1 ? 'it' : 'them'} shortly.
          </p>
        )}
        {failedEdges.length === 0 ? (
          <Empty title="No failed webhooks">Every delivery was handled.</Empty>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Repository</th>
                  <th scope="col">Received</th>
                  <th scope="col" className="num">
                    Attempts
                  </th>
                  <th scope="col">Error</th>
                  <AdminOnly>
                    <th scope="col">
                      <span className="sr-only">Actions</span>
                    </th>
                  </AdminOnly>
                </tr>
              </thead>
              <tbody>{failedEdges.map((e) => e?.node && <FailedWebhookRow
                      key={e.node.id}
                      event={e.node}
                      onRetried={(what) => {
                        setRetried((r) => [...r, what]);
                        refresh();
                      }}
                    />)}</tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="github-h">
        <h2 id="github-h">GitHub limits</h2>
        {(() => {
          const now = Date.parse(s.now);
          const waiting = s.installations.filter((i) => i.githubWaitUntil && Date.parse(i.githubWaitUntil) > now);
          const blocked = s.installations.filter((i) => i.resolveBlocked);
          if (waiting.length === 0 && blocked.length === 0) {
            return <p className="muted">No installation is waiting for GitHub, and every one may resolve review threads.</p>;
          }
          return (
            <ul className="plain">
              {waiting.map((i) => (
                <li key={`wait-${i.id}`}>
                  <strong>{i.accountLogin}</strong>: waiting for GitHub until {formatTime(i.githubWaitUntil)}
                  {i.githubWaitReason && <span className="muted"> ({i.githubWaitReason})</span>}; its reviews go on then.
                </li>
              ))}
              {blocked.map((i) => (
                <li key={`resolve-${i.id}`}>
                  <strong>{i.accountLogin}</strong>: cannot resolve review threads. <span className="error-text">{i.resolveBlocked}</span>
                </li>
              ))}
            </ul>
          );
        })()}
        {s.contentBudgets.length > 0 && (
          <table aria-label="Content budgets">
            <caption className="muted">
              Content-creating writes (check runs, workflow dispatches, reviews, comments) each installation may make now: Chakshu
              paces them to stay inside GitHub's limits; reviews under way go before new ones.
            </caption>
            <thead>
              <tr>
                <th scope="col">Installation</th>
                <th scope="col">Writes available now</th>
                <th scope="col">New reviews</th>
              </tr>
            </thead>
            <tbody>
              {s.contentBudgets.map((b) => (
                <tr key={b.installation.id}>
                  <td>{b.installation.accountLogin}</td>
                  <td>{b.windows.map((w) => `${w.available} (of ${w.limit} ${per(w.seconds)})`).join(' · ')}</td>
                  <td>{b.newReviewsAt ? <>start at {formatTime(b.newReviewsAt)}</> : 'start now'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section aria-labelledby="sync-h">
        <h2 id="sync-h">Reviewer syncs</h2>
        {s.installations.length === 0 ? (
          <Empty title="No installations">Install the GitHub App on an organisation or account to start.</Empty>
        ) : (
          <ul className="plain">
            {s.installations.map((i) => (
              <li key={i.id}>
                <strong>{i.accountLogin}</strong>: {i.lastSyncAt ? <>synced {ago(i.lastSyncAt, Date.parse(s.now))} at <code>{shortSha(i.lastSyncCommit)}</code></> : 'never synced'}
                {i.syncRequestedAt && <span className="muted"> · sync requested {ago(i.syncRequestedAt, Date.parse(s.now))}</span>}
                {i.lastSyncError && <div className="error-text">Last sync error: {i.lastSyncError}</div>}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

// per names a pacing window: "a minute", "an hour", or its seconds.
function per(seconds: number): string {
  if (seconds === 60) return 'a minute';
  if (seconds === 3600) return 'an hour';
  return `per ${seconds} s`;
}
