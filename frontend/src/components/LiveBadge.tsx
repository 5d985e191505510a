// Says how a page's runs stay current (lib/live.ts).
import type { LiveMode } from '../lib/live';

export function LiveBadge({ mode }: { mode: LiveMode }) {
  if (mode === 'idle') return null;
  return mode === 'live' ? (
    <span className="live" title="Statuses update as they change">
      live
    </span>
  ) : (
    <span className="live polling" title="The live connection is down: refreshing every few seconds">
      refreshing
    </span>
  );
}
