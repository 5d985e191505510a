// Small hand-drawn SVG charts (no chart library: the bundle stays small).
import { formatCost } from '../lib/format';

export interface Point {
  key: string;
  label: string;
  value: number;
}

const W = 640;
const PAD = { l: 48, r: 8, t: 10, b: 28 };

/** The geometry of a column chart H high with n columns up to max. */
function frame(H: number, n: number, max: number) {
  const slot = (W - PAD.l - PAD.r) / Math.max(n, 1);
  const h = (v: number) => ((H - PAD.t - PAD.b) * v) / max;
  return {
    bw: Math.max(1, Math.min(40, slot * 0.75)),
    h,
    y: (v: number) => H - PAD.b - h(v),
    x: (i: number, bw: number) => PAD.l + slot * i + (slot - bw) / 2,
    labelEvery: Math.ceil(Math.max(n, 1) / 8),
  };
}

/** Horizontal grid lines with their values at 0, half and max. */
function Grid({ max, y, format }: { max: number; y: (v: number) => number; format: (v: number) => string }) {
  return (
    <>
      {[0, max / 2, max].map((t) => (
        <g key={t}>
          <line x1={PAD.l} x2={W - PAD.r} y1={y(t)} y2={y(t)} className="grid" />
          <text x={PAD.l - 6} y={y(t) + 4} textAnchor="end" className="axis">
            {format(t)}
          </text>
        </g>
      ))}
    </>
  );
}

/** Column chart over time (one column per day or week). */
export function ColumnChart({ points, title, format = formatCost }: { points: Point[]; title: string; format?: (v: number) => string }) {
  const H = 200;
  const max = Math.max(...points.map((p) => p.value), 0) || 1;
  const { bw, h, y, x: left, labelEvery } = frame(H, points.length, max);
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title}>
        <title>{title}</title>
        <Grid max={max} y={y} format={format} />
        {points.map((p, i) => {
          const x = left(i, bw);
          return (
            <g key={p.key}>
              <rect x={x} y={y(p.value)} width={bw} height={Math.max(0, h(p.value))} className="bar">
                <title>{`${p.label}: ${format(p.value)}`}</title>
              </rect>
              {i % labelEvery === 0 && (
                <text x={x + bw / 2} y={H - 10} textAnchor="middle" className="axis">
                  {p.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** Ranked horizontal bars (reviewers, repositories). */
export function BarList({ points, title, format = formatCost }: { points: Point[]; title: string; format?: (v: number) => string }) {
  const max = Math.max(...points.map((p) => p.value), 0) || 1;
  return (
    <ul className="barlist" aria-label={title}>
      {points.map((p) => (
        <li key={p.key}>
          <span className="barlist-label truncate" title={p.label}>
            {p.label}
          </span>
          <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" className="barlist-bar">
            <rect x="0" y="0" height="10" width={Math.max(0.5, (100 * p.value) / max)} className="bar" />
          </svg>
          <span className="num">{format(p.value)}</span>
        </li>
      ))}
    </ul>
  );
}

/** One series of a stacked chart: a value per column. */
export interface StackSeries {
  key: string;
  label: string;
  values: number[];
}

/** How many colours the stacked charts have (the last one is "Other"). */
export const SERIES_COLOURS = 8;

/**
 * Stacked columns over time, one colour per series, with a legend (totals)
 * and the figures as a table for screen readers and keyboards.
 */
export function StackedColumnChart({ columns, series, title, format = formatCost }: { columns: { key: string; label: string }[]; series: StackSeries[]; title: string; format?: (v: number) => string }) {
  const H = 220;
  const sums = columns.map((_, i) => series.reduce((s, x) => s + (x.values[i] ?? 0), 0));
  const max = Math.max(...sums, 0) || 1;
  const { bw, h, y, x: left, labelEvery } = frame(H, columns.length, max);
  const colour = (i: number) => `series-${Math.min(i, SERIES_COLOURS - 1)}`;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={title}>
        <title>{title}</title>
        <Grid max={max} y={y} format={format} />
        {columns.map((c, i) => {
          const x = left(i, bw);
          let base = 0;
          return (
            <g key={c.key}>
              {series.map((s, si) => {
                const v = s.values[i] ?? 0;
                if (v <= 0) return null;
                const r = (
                  <rect key={s.key} x={x} y={y(base + v)} width={bw} height={Math.max(0.5, h(v))} className={colour(si)}>
                    <title>{`${c.label} · ${s.label}: ${format(v)}`}</title>
                  </rect>
                );
                base += v;
                return r;
              })}
              {i % labelEvery === 0 && (
                <text x={x + bw / 2} y={H - 10} textAnchor="middle" className="axis">
                  {c.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul className="legend" aria-label={`${title}: totals`}>
          {series.map((s, i) => (
            <li key={s.key}>
              <svg viewBox="0 0 10 10" width="10" height="10" aria-hidden="true">
                <rect width="10" height="10" className={colour(i)} />
              </svg>
              <span className="truncate" title={s.label}>
                {s.label}
              </span>{' '}
              <span className="num muted">{format(s.values.reduce((a, b) => a + b, 0))}</span>
            </li>
          ))}
        </ul>
        <details className="chart-data">
          <summary>Show the figures</summary>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">{title}</caption>
              <thead>
                <tr>
                  <th scope="col">Period</th>
                  {series.map((s) => (
                    <th key={s.key} scope="col" className="num">
                      {s.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {columns.map((c, i) => (
                  <tr key={c.key}>
                    <th scope="row">{c.key}</th>
                    {series.map((s) => (
                      <td key={s.key} className="num">
                        {format(s.values[i] ?? 0)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </figcaption>
    </figure>
  );
}
