import { describe, expect, it } from 'vitest';
import { okRps, peersTable, peersTargets, type PeerRow } from '../../bench/peers-report.js';

const result = (rps: number) => ({ rps, p50: 10, p99: 30, errors: 0, requests: rps * 5, cpuUs: 500, dbCpuUs: 200 });
const row = (server: string, rps: number | undefined, ratio?: number, db: PeerRow['db'] = 'postgres'): PeerRow => ({
  scenario: 'graphql_peers',
  server,
  db,
  messages: 10_000,
  connections: 32,
  stack: 'x 1.0.0; v22.0.0',
  ...(rps !== undefined ? { result: result(rps) } : {}),
  ...(ratio !== undefined ? { ratio } : {}),
  notes: [],
});

describe('GraphQL peers section', () => {
  it('judges the service against the peer with the most req/s, on the paired rounds', () => {
    const rows = [row('service', 1000), row('postgraphile', 700, 0.7), row('mercurius', 950, 0.95)];
    expect(peersTargets(rows)).toEqual([
      '- graphql_peers on postgres: service GraphQL page ≥ best peer req/s: met (service 1,000 req/s, best peer mercurius 950 req/s; mercurius ÷ service over the paired rounds 0.95)',
    ]);
  });

  it('is not met when the best peer out-served the service in the paired rounds', () => {
    const [line] = peersTargets([row('service', 1000), row('postgraphile', 700, 0.7), row('mercurius', 1200, 1.2)]);
    expect(line).toMatch(/^- graphql_peers on postgres: service GraphQL page ≥ best peer req\/s: \*\*not met\*\* \(.*best peer mercurius 1,200 req\/s/);
  });

  it('counts only answers without error: a refused request is not served', () => {
    expect(okRps({ rps: 1000, requests: 5000, errors: 1000 })).toBe(800);
    expect(okRps({ rps: 0, requests: 0, errors: 3 })).toBe(0);
    const service = { ...row('service', 1000), result: { ...result(1000), errors: 1000 } };
    const [line] = peersTargets([service, row('mercurius', 900, 1.12)]);
    expect(line).toBe(
      "- graphql_peers on postgres: service GraphQL page ≥ best peer req/s: **not met** (service 800 req/s, best peer mercurius 900 req/s; mercurius ÷ service over the paired rounds 1.12; the service's 1,000 error answers not counted)",
    );
  });

  it('gives no target without a measured peer, and none for a skipped storage', () => {
    expect(peersTargets([row('service', 1000), row('postgraphile', undefined)])).toEqual([]);
    expect(peersTargets([{ ...row('peers', undefined, undefined, 'pglite'), notes: ['skipped'] }])).toEqual([]);
  });

  it('keys each row by server and storage, and shows — where nothing was measured', () => {
    const lines = peersTable([row('service', 1000), { ...row('postgraphile', undefined), notes: ['not run: npm ci failed'] }]).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/^\| service \| postgres \| 10,000 \| 32 \| x 1\.0\.0; v22\.0\.0 \| 1,000 \| 10 \| 30 \| 0 \| — \| 500 \| 200 \|/);
    expect(lines[3]).toBe('| postgraphile | postgres | 10,000 | 32 | x 1.0.0; v22.0.0 | — | — | — | — | — | — | — | not run: npm ci failed |');
  });
});
