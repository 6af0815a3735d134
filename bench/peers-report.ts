/** The "GraphQL peers" section of docs/BENCHMARKS.md: its table, its target line, its method paragraph. */
import type { LoadResult } from './procs.js';
import type { StorageKind } from './types.js';

const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '—' : n.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }));

/**
 * req/s of answers without error: autocannon's rate counts every answer, and a fast refusal
 * (a 429 or 503 from the service's guards, which the peers do not have) serves no page.
 */
export const okRps = (r: Pick<LoadResult, 'rps' | 'requests' | 'errors'>) => (r.requests > 0 ? (r.rps * Math.max(0, r.requests - r.errors)) / r.requests : 0);

/** One server of the GraphQL peers table: the service's page, or a peer's. */
export interface PeerRow {
  scenario: string;
  /** `service` or the peer's name (the row key with the DB). */
  server: string;
  db: StorageKind;
  messages: number;
  connections: number;
  /** Packages and Node.js version the server ran. */
  stack: string;
  result?: LoadResult;
  /** Median over the rounds of this server's okRps ÷ the service's in the same round (peers only). */
  ratio?: number;
  notes: string[];
}

/** The row of a storage the peers cannot run on: PGlite is one in-process owner, not a server they can connect to. */
export const skippedPeers = (scenario: string, db: StorageKind, messages: number, connections: number): PeerRow => ({
  scenario,
  server: 'peers',
  db,
  messages,
  connections,
  stack: '—',
  notes: ['skipped: the peers need a PostgreSQL server (PGlite is one in-process owner)'],
});

export function peersTable(rows: PeerRow[]): string {
  const lines = [
    '| Server | DB | Messages | Conns | Stack | req/s | p50 ms | p99 ms | Errors | req/s ÷ service | CPU µs/req | PostgreSQL CPU µs/req | Notes |',
    '|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const r of rows) {
    const res = r.result;
    lines.push(
      `| ${r.server} | ${r.db} | ${fmt(r.messages)} | ${r.connections} | ${r.stack} | ${fmt(res?.rps)} | ${fmt(res?.p50)} | ${fmt(res?.p99)} | ${res ? res.errors : '—'} | ` +
        `${r.ratio !== undefined ? r.ratio.toFixed(2) : '—'} | ${fmt(res?.cpuUs)} | ${fmt(res?.dbCpuUs)} | ${r.notes.join('; ')} |`,
    );
  }
  return lines.join('\n');
}

/** "service GraphQL page ≥ best peer req/s": against the measured peer with the most req/s, judged on the paired rounds. */
export function peersTargets(rows: PeerRow[]): string[] {
  const out: string[] = [];
  for (const db of new Set(rows.map((r) => r.db))) {
    const service = rows.find((r) => r.db === db && r.server === 'service' && r.result);
    const peers = rows.filter((r) => r.db === db && r.server !== 'service' && r.result && r.ratio !== undefined);
    if (!service || peers.length === 0) continue;
    const best = peers.reduce((a, b) => (okRps(b.result!) > okRps(a.result!) ? b : a));
    const errors = service.result!.errors > 0 ? `; the service's ${fmt(service.result!.errors)} error answers not counted` : '';
    out.push(
      `- ${best.scenario} on ${db}: service GraphQL page ≥ best peer req/s: ${best.ratio! <= 1 ? 'met' : '**not met**'} ` +
        `(service ${fmt(okRps(service.result!))} req/s, best peer ${best.server} ${fmt(okRps(best.result!))} req/s; ${best.server} ÷ service over the paired rounds ${best.ratio!.toFixed(2)}${errors})`,
    );
  }
  return out;
}

export const PEERS_HEADING = '## GraphQL peers';
export const PEERS_METHOD =
  "The service's `graphql_messages_page` (one app's messages, 50 rows newest first, with its bearer token) measured in the same rounds as peer GraphQL servers " +
  'answering the same page from the same PostgreSQL database: PostGraphile 5 (its generated `allMessages` connection, `condition: { appId }`, ' +
  '`orderBy: [CREATED_AT_DESC, ROW_ID_DESC]`, `first: 50`) and Mercurius on Fastify with graphql-jit (the service\'s own document, one hand-written ' +
  "resolver running the floor's SQL through postgres.js). Each peer's ids are checked against the service's before measuring. bench/peers/ (its own " +
  'package.json and lockfile, installed on demand), each peer pinned like the service; same autocannon load, warm-up until settled, then rounds with ' +
  'the order rotating; medians of the rounds; req/s ÷ service = the median over the rounds of the peer\'s req/s ÷ the service\'s in the same round, ' +
  'both counting only answers without error (the target line too). ' +
  'CPU µs/req = the server process\'s CPU (/proc) ÷ requests. **The peers do no token verification, scope checks or rate limiting** (nor input ' +
  'limits or error envelopes); the service does all of these per request.';
