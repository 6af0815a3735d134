import { describe, expect, it } from 'vitest';
import { SCALE_HEADING_START, scaleHeading, scaleTable, scaleTargets, shortCount, slowdown, type ScaleRow } from '../../bench/scale.js';

const row = (scenario: string, messages: number, rps: number, dbCpuUs = 200): ScaleRow => ({
  scenario,
  messages,
  service: { rps, p50: 10, p99: 30, errors: 0, requests: rps * 20, cpuUs: 400, dbCpuUs },
});

describe('the scale comparison', () => {
  const small = [row('messages_page', 1_000_000, 2000), row('metrics_summary', 1_000_000, 700), row('messages_search', 1_000_000, 900)];
  const large = [row('messages_page', 10_000_000, 1900), row('metrics_summary', 10_000_000, 500), row('messages_search', 10_000_000, 300)];

  it('slowdown is req/s at the smaller size over the larger, and unknown when either is missing', () => {
    expect(slowdown(small[0], large[0])).toBeCloseTo(2000 / 1900);
    expect(slowdown(small[0], undefined)).toBeUndefined();
    expect(slowdown({ scenario: 'x', messages: 1 }, large[0])).toBeUndefined();
  });

  it('a flat scenario within 1.2× is met, past it not; scenarios that need not be flat get no target', () => {
    const lines = scaleTargets(small, large);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^- messages_page on postgres from 1,000,000 to 10,000,000 messages: 1\.05× slower .*: met$/);
    expect(lines[1]).toMatch(/^- metrics_summary .*1\.40× slower .*\*\*not met\*\*$/);
  });

  it('the table has a row per scenario measured at either size, in the scenarios’ order', () => {
    const table = scaleTable(small, large).split('\n');
    expect(table[0]).toContain('req/s at 1,000,000');
    expect(table[0]).toContain('req/s at 10,000,000');
    expect(table.slice(2).map((l) => l.split(' | ')[0])).toEqual(['| messages_page', '| messages_search', '| metrics_summary']);
    expect(table[3]).toContain('3.00×');
  });
});

describe('the scale heading', () => {
  it('names both sizes briefly, and starts the same whatever they are', () => {
    expect(scaleHeading(1_000_000, 10_000_000)).toBe('## Scale: 1M against 10M messages');
    expect(scaleHeading(20_000, 200_000)).toBe('## Scale: 20k against 200k messages');
    expect(shortCount(1_500_000)).toBe('1.5M');
    expect(shortCount(12_345)).toBe('12,345');
    expect(scaleHeading(20_000, 200_000).startsWith(SCALE_HEADING_START)).toBe(true);
  });
});
