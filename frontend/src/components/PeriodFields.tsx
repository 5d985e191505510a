// The period inputs of the dashboards (Costs, Quality): from and to days, any
// extra fields of the page, and quick presets of the last 7, 30 or 90 days.
import type { ReactNode } from 'react';
import { isoDay } from '../lib/format';

const PRESETS = [7, 30, 90] as const;

export default function PeriodFields({
  p,
  set,
  children,
}: {
  p: { from: string; to: string; days: number };
  set: (patch: { from?: string; to?: string }) => void;
  children?: ReactNode;
}) {
  const preset = (days: number) => {
    const to = new Date();
    const from = new Date();
    from.setDate(from.getDate() - (days - 1));
    set({ from: isoDay(from), to: isoDay(to) });
  };
  return (
    <>
      <label>
        From
        <input type="date" name="from" value={p.from} max={p.to} onChange={(e) => e.target.value && set({ from: e.target.value })} />
      </label>
      <label>
        To
        <input type="date" name="to" value={p.to} min={p.from} onChange={(e) => e.target.value && set({ to: e.target.value })} />
      </label>
      {children}
      <div className="presets" role="group" aria-label="Quick periods">
        {PRESETS.map((n) => (
          <button key={n} type="button" onClick={() => preset(n)} aria-pressed={p.days === n && p.to === isoDay(new Date())}>
            {n} days
          </button>
        ))}
      </div>
    </>
  );
}
