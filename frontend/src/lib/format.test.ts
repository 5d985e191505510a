import { describe, expect, it } from 'vitest';
import { ago, dayEnd, dayStart, formatCost, formatDuration, formatPercent, shortSha } from './format';
import { applyPatch } from './url';

describe('formatCost', () => {
  it.each([
    [0, '$0'],
    [0.004, '$0.004'],
    [0.42, '$0.42'],
    [12.345, '$12.35'],
    [1234.5, '$1,235'],
    [null, '—'],
    [Number.NaN, '—'],
  ])('%s → %s', (v, want) => expect(formatCost(v)).toBe(want));
});

describe('formatDuration', () => {
  it.each([
    [0, '—'],
    [850, '850 ms'],
    [42000, '42 s'],
    [185000, '3m 05s'],
    [3720000, '1h 02m'],
  ])('%s → %s', (v, want) => expect(formatDuration(v)).toBe(want));
});

describe('ago', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  it.each([
    ['2026-11-30T11:59:58Z', 'just now'],
    ['2026-11-30T11:55:00Z', '5 min ago'],
    ['2026-11-30T09:00:00Z', '3 h ago'],
    ['2026-11-27T12:00:00Z', '3 d ago'],
    ['garbage', '—'],
  ])('%s → %s', (iso, want) => expect(ago(iso, now)).toBe(want));
});

describe('days', () => {
  it('bounds a day in local time', () => {
    const s = dayStart('2026-02-28')!;
    const e = dayEnd('2026-02-28')!;
    expect(new Date(s).getDate()).toBe(28);
    expect(new Date(e).getDate()).toBe(1);
    expect(new Date(e).getMonth()).toBe(2);
  });
  it.each(['', '2026-02-30', '2026-2-1', 'yesterday'])('rejects %j', (d) => expect(dayStart(d)).toBeNull());
});

describe('misc', () => {
  it('formats', () => {
    expect(shortSha('0123456789abcdef')).toBe('0123456');
    expect(formatPercent(0.25)).toBe('25%');
    expect(formatPercent(0.05)).toBe('5.0%');
  });
});

describe('applyPatch', () => {
  it.each([
    ['sets a filter', '', { status: 'failed' }, '?status=failed'],
    ['removes an empty filter', '?status=failed', { status: '' }, ''],
    ['a filter change drops cursors', '?after=c1&status=failed', { status: 'queued' }, '?status=queued'],
    ['a page change keeps filters', '?status=failed', { after: 'c2' }, '?after=c2&status=failed'],
    ['paging back drops the other cursor', '?after=c2&status=failed', { after: null, before: 'c1' }, '?before=c1&status=failed'],
    ['keys are sorted for stable URLs', '?z=1', { a: '2' }, '?a=2&z=1'],
  ])('%s', (_n, search, patch, want) => expect(applyPatch(search, patch)).toBe(want));
});
