// Formatting of money, durations, times and commits for the portal.

/** US dollars: "$1.23", "$0.004" for tiny amounts, "$0" for none. */
export function formatCost(usd: number | null | undefined): string {
  if (usd == null || !Number.isFinite(usd)) return '—';
  if (usd === 0) return '$0';
  if (Math.abs(usd) < 0.01) return '$' + usd.toFixed(4).replace(/0+$/, '');
  if (Math.abs(usd) < 100) return '$' + usd.toFixed(2);
  return '$' + Math.round(usd).toLocaleString('en-US');
}

/** Milliseconds as "850 ms", "42 s", "3m 05s", "1h 02m". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms) || ms <= 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** Seconds of age as "just now", "4 min", "2 h", "3 d". */
export function formatAge(seconds: number | null | undefined): string {
  if (seconds == null || !Number.isFinite(seconds)) return '—';
  if (seconds < 10) return 'just now';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} d`;
}

/** "5 min ago" relative to now. */
export function ago(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '—';
  const s = (now - t) / 1000;
  if (s < 0) return 'in ' + formatAge(-s);
  const a = formatAge(s);
  return a === 'just now' ? a : a + ' ago';
}

/** A readable local date and time. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** Compact integers: 1234 → "1.2k", 2500000 → "2.5M". */
export function formatCount(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '—';
  const a = Math.abs(n);
  if (a < 1000) return String(Math.round(n));
  if (a < 1e6) return (n / 1e3).toFixed(a < 1e4 ? 1 : 0) + 'k';
  return (n / 1e6).toFixed(a < 1e7 ? 1 : 0) + 'M';
}

/** Percentage from a 0..1 ratio. */
export function formatPercent(r: number | null | undefined): string {
  if (r == null || !Number.isFinite(r)) return '—';
  return (r * 100).toFixed(r > 0 && r < 0.1 ? 1 : 0) + '%';
}

/** The first 7 characters of a commit SHA. */
export function shortSha(sha: string | null | undefined): string {
  return sha ? sha.slice(0, 7) : '';
}

/** YYYY-MM-DD of a Date in local time (for <input type=date>). */
export function isoDay(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** Start of a YYYY-MM-DD day in local time as an ISO instant; null when invalid. */
export function dayStart(day: string | null | undefined): string | null {
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const [y, m, d] = day.split('-').map(Number);
  const t = new Date(y, m - 1, d);
  if (t.getFullYear() !== y || t.getMonth() !== m - 1 || t.getDate() !== d) return null;
  return t.toISOString();
}

/** Start of the day after a YYYY-MM-DD day (an exclusive upper bound). */
export function dayEnd(day: string | null | undefined): string | null {
  const s = dayStart(day);
  if (!s) return null;
  const t = new Date(s);
  t.setDate(t.getDate() + 1);
  return t.toISOString();
}
