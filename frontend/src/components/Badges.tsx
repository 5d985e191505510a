// Run status and finding severity badges.
import { humanize } from '../lib/runStatus';

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{humanize(status)}</span>;
}

export interface Counts {
  blocker: number;
  major: number;
  minor: number;
  nit: number;
}

const SEVERITIES = ['blocker', 'major', 'minor', 'nit'] as const;

/** Findings by severity as coloured counts; zeros are dimmed. */
export function SeverityCounts({ counts }: { counts: Counts }) {
  const total = counts.blocker + counts.major + counts.minor + counts.nit;
  if (total === 0) return <span className="muted">none</span>;
  return (
    <span className="sev-counts" aria-label={SEVERITIES.map((s) => `${counts[s]} ${s}`).join(', ')}>
      {SEVERITIES.map((s) => (
        <span key={s} className={`sev sev-${s}${counts[s] === 0 ? ' zero' : ''}`} title={s}>
          {counts[s]}
        </span>
      ))}
    </span>
  );
}

export function SeverityBadge({ severity }: { severity: string }) {
  return <span className={`badge sev-${severity}`}>{severity}</span>;
}
