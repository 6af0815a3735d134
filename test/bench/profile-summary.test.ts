import { describe, expect, it } from 'vitest';
import { frameGroup, summarize, type CpuProfile } from '../../bench/profile-summary.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

// (root) → handler (dist/src/http) → query (postgres) → query again (recursion) ; (root) → (idle)
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 5] },
    { id: 2, callFrame: frame('handler', 'file:///app/dist/src/http/app.js', 9), children: [3] },
    { id: 3, callFrame: frame('query', 'file:///app/node_modules/postgres/src/connection.js', 99), children: [4] },
    { id: 4, callFrame: frame('query', 'file:///app/node_modules/postgres/src/connection.js', 99) },
    { id: 5, callFrame: frame('(idle)') },
  ],
  samples: [2, 3, 4, 4, 5, 5],
  timeDeltas: [1000, 1000, 1000, 1000, 3000, 3000],
};

describe('bench/profile-summary', () => {
  const summary = summarize(profile);

  it('leaves idle samples out of the busy time', () => {
    expect(summary.busyMs).toBe(4);
  });

  it('sums self time by package or src/ folder and by function', () => {
    expect(summary.byGroup).toEqual([
      ['postgres', 3],
      ['src/http', 1],
    ]);
    expect(summary.self).toEqual([
      ['query postgres/src/connection.js:100', 3],
      ['handler src/http/app.js:10', 1],
    ]);
  });

  it('counts a recursing function once per sample in its inclusive time', () => {
    expect(Object.fromEntries(summary.inclusive)).toEqual({ 'handler src/http/app.js:10': 4, 'query postgres/src/connection.js:100': 3 });
  });

  it('groups scoped packages, node: modules and V8 entries', () => {
    expect(frameGroup(frame('x', 'file:///a/node_modules/@pothos/core/esm/index.js'))).toBe('@pothos/core');
    expect(frameGroup(frame('x', 'node:internal/streams/readable'))).toBe('node:internal/streams');
    expect(frameGroup(frame('(garbage collector)'))).toBe('(garbage collector)');
  });
});
