/**
 * The dashboard's charts, drawn by hand in SVG (docs/decisions.md "Console charts: hand-made SVG"): bars per day
 * and a ranked bar list. Each bar carries its value (data-value) and a <title>; the numbers are also one click
 * away as a table, for screen readers and for copying.
 */
import { useId } from 'react';

export interface Point {
  key: string;
  label: string;
  value: number;
}

// about the width a chart is drawn at (a card of the two-column grid, or a phone), so its 11-unit text reads as ~10 px
const W = 400;
const H = 170;
const PAD = { top: 10, right: 6, bottom: 22, left: 30 };

/** A round top for the axis: 1, 2, 5 × 10^n at or above the largest value. */
export function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

const fmt = (v: number) => (Number.isInteger(v) ? v.toLocaleString() : v.toLocaleString(undefined, { maximumFractionDigits: 1 }));

export function DayBars({ title, points, unit }: { title: string; points: readonly Point[]; unit: string }) {
  const id = useId();
  const max = niceMax(Math.max(0, ...points.map((p) => p.value)));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const step = innerW / Math.max(1, points.length);
  const bar = Math.max(1, step * 0.7);
  const total = points.reduce((s, p) => s + p.value, 0);
  const labelEvery = Math.ceil(points.length / 5);
  return (
    <figure className="admin-chart" aria-labelledby={`${id}-t`} data-chart={title}>
      <figcaption id={`${id}-t`} className="admin-chart__title">
        {title} <span className="admin-chart__total">{fmt(total)} in all</span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} className="admin-chart__svg" role="img" aria-label={`${title}: ${fmt(total)} ${unit} in all over ${points.length} days, at most ${fmt(Math.max(0, ...points.map((p) => p.value)))} a day`}>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line x1={PAD.left} x2={W - PAD.right} y1={PAD.top + innerH * (1 - f)} y2={PAD.top + innerH * (1 - f)} className="admin-chart__grid" />
            <text x={PAD.left - 6} y={PAD.top + innerH * (1 - f) + 4} className="admin-chart__axis" textAnchor="end">
              {fmt(max * f)}
            </text>
          </g>
        ))}
        {points.map((p, i) => {
          const h = (p.value / max) * innerH;
          const x = PAD.left + i * step + (step - bar) / 2;
          return (
            <g key={p.key}>
              <rect className="admin-chart__bar" x={x} y={PAD.top + innerH - h} width={bar} height={h} data-key={p.key} data-value={p.value}>
                <title>{`${p.label}: ${fmt(p.value)} ${unit}`}</title>
              </rect>
              {i % labelEvery === 0 ? (
                <text x={x + bar / 2} y={H - 6} className="admin-chart__axis" textAnchor="middle">
                  {p.label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <details className="admin-chart__numbers">
        <summary>The numbers</summary>
        <NumbersTable points={points} unit={unit} />
      </details>
    </figure>
  );
}

/** Ranked items as horizontal bars (most first). */
export function RankBars({ title, points, unit, empty }: { title: string; points: readonly Point[]; unit: string; empty: string }) {
  const id = useId();
  const max = Math.max(0, ...points.map((p) => p.value)) || 1;
  return (
    <figure className="admin-chart" aria-labelledby={`${id}-t`} data-chart={title}>
      <figcaption id={`${id}-t`} className="admin-chart__title">
        {title}
      </figcaption>
      {points.length ? (
        <ol className="admin-rank">
          {points.map((p) => (
            <li key={p.key} data-key={p.key} data-value={p.value}>
              <span className="admin-rank__label">{p.label}</span>
              <span className="admin-rank__track" aria-hidden="true">
                <span className="admin-rank__fill" style={{ width: `${(p.value / max) * 100}%` }} />
              </span>
              <span className="admin-rank__value">
                {fmt(p.value)} <span className="visually-hidden">{unit}</span>
              </span>
            </li>
          ))}
        </ol>
      ) : (
        <p className="admin-muted">{empty}</p>
      )}
    </figure>
  );
}

function NumbersTable({ points, unit }: { points: readonly Point[]; unit: string }) {
  return (
    <table className="admin-table">
      <thead>
        <tr>
          <th>Day</th>
          <th className="num">{unit}</th>
        </tr>
      </thead>
      <tbody>
        {points.map((p) => (
          <tr key={p.key}>
            <td>{p.label}</td>
            <td className="num">{fmt(p.value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
