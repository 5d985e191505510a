// Polling: re-run a query on an interval while the page is visible and
// something on it can still change. Run pages use it as the fallback of the
// runUpdated subscription (lib/live.ts); the status page polls.
import { useEffect } from 'react';

export function usePolling(refresh: () => void, intervalMs: number, enabled: boolean): void {
  useEffect(() => {
    if (!enabled) return;
    const tick = () => {
      if (typeof document === 'undefined' || document.visibilityState !== 'hidden') refresh();
    };
    const id = setInterval(tick, intervalMs);
    const onVisible = () => {
      if (document.visibilityState === 'visible') refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(id);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [refresh, intervalMs, enabled]);
}
