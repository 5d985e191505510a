// A run's path through its states, with the time of each step.
import { formatTime } from '../lib/format';
import { RUN_STEPS, humanize } from '../lib/runStatus';

export interface TimelineEvent {
  id: string;
  at: string;
  fromStatus: string;
  toStatus: string;
  message: string;
  detail: string;
}

/** Steps to draw: the happy path, with the terminal state replacing
 * "succeeded" when the run failed or was cancelled. */
export function timelineSteps(status: string, events: TimelineEvent[], createdAt: string) {
  const terminal = status === 'failed' || status === 'cancelled' ? status : 'succeeded';
  const reached = new Map<string, TimelineEvent>();
  for (const e of events) if (!reached.has(e.toStatus)) reached.set(e.toStatus, e);
  const steps: string[] = RUN_STEPS.map((s) => (s === "succeeded" ? terminal : s));
  const idx = steps.indexOf(status);
  return steps.map((s, i) => {
    const ev = reached.get(s);
    const at = ev?.at ?? (s === 'queued' ? createdAt : undefined);
    let state: 'done' | 'current' | 'todo' | 'skipped' = 'todo';
    if (s === status) state = status === 'failed' || status === 'cancelled' || status === 'succeeded' ? 'done' : 'current';
    else if (at) state = 'done';
    // A failed or cancelled run never reached the steps it has no event for.
    else if (terminal !== 'succeeded') state = 'skipped';
    else if (idx >= 0 && i < idx) state = 'done';
    return { status: s, at, state, message: ev?.message ?? '' };
  });
}

export function Timeline({ status, events, createdAt, showDetail }: { status: string; events: TimelineEvent[]; createdAt: string; showDetail: boolean }) {
  const steps = timelineSteps(status, events, createdAt);
  return (
    <section aria-labelledby="timeline-h">
      <h2 id="timeline-h">Timeline</h2>
      <ol className="timeline">
        {steps.map((s) => (
          <li key={s.status} className={`step step-${s.state} st-${s.status}`} aria-current={s.state === 'current' ? 'step' : undefined}>
            <span className="step-dot" aria-hidden="true" />
            <span className="step-name">{humanize(s.status)}</span>
            <span className="step-time">{s.at ? <time dateTime={s.at}>{formatTime(s.at)}</time> : s.state === 'skipped' ? 'skipped' : '—'}</span>
          </li>
        ))}
      </ol>
      {events.length > 0 && (
        <details className="events">
          <summary>All {events.length} events</summary>
          <ul>
            {events.map((e) => (
              <li key={e.id}>
                <time dateTime={e.at}>{formatTime(e.at)}</time> {e.fromStatus ? `${humanize(e.fromStatus)} → ` : ''}
                {humanize(e.toStatus)}
                {e.message && <span> — {e.message}</span>}
                {showDetail && e.detail && <pre className="detail">{e.detail}</pre>}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
