/**
 * The GraphQL attacks, longer than `npm test` runs them, against one server on loopback (in this
 * process, so a full GC can be forced before each heap reading):
 *   1. unique operation names of 1 MB on `{ viewer { clientId } }`, 6 loops in parallel;
 *   2. documents of 1,200 repeated fields, each new, at 6 a second from one client, while another
 *      tenant's p50 is measured against its idle value.
 * Checks: no 5xx, the heap after a forced full GC (switchboard_nodejs_heap_used_after_major_gc_bytes)
 * within HEAP_GROWTH_MB of its start, the other tenant's p50 within twice its idle value (3 ms
 * floor). Prints a JSON report; exits 1 when a check fails.
 *
 *   npm run soak:hostile                       # embedded PGlite, ~90 s
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run soak:hostile
 *   HOSTILE_SECONDS=20 npm run soak:hostile    # seconds per attack
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestServer } from '../helpers/server.js';

const SECONDS = Number(process.env.HOSTILE_SECONDS ?? 40);
const HEAP_GROWTH_MB = Number(process.env.HEAP_GROWTH_MB ?? 64);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const server = await startTestServer({ METRICS: '1' });
const unlimited = { minute: 1_000_000_000, hour: 1_000_000_000, day: 1_000_000_000 };
const attacker = await server.tenant({ scopes: ['messages:read'], rate: unlimited });
const other = await server.tenant({ scopes: ['messages:read'], rate: unlimited });

const post = async (token: string, body: unknown) => {
  const res = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function heapAfterGc(): Promise<number> {
  gc();
  await sleep(50);
  const text = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^switchboard_nodejs_heap_used_after_major_gc_bytes (\S+)$/m.exec(text)?.[1] ?? NaN);
}

const statuses: Record<string, number> = {};
const count = (status: number) => (statuses[status] = (statuses[status] ?? 0) + 1);

await fetch(`${server.url}/metrics`);
const heapStart = await heapAfterGc();
const heap: number[] = [];

// 1. Unique 1 MB operation names.
{
  const until = Date.now() + SECONDS * 1000;
  // Under the 1 MiB body limit with the rest of the request.
  const megabyte = 'x'.repeat(1_000_000);
  let n = 0;
  const sampler = (async () => {
    while (Date.now() < until) {
      await sleep(5000);
      heap.push(await heapAfterGc());
    }
  })();
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (Date.now() < until) count(await post(attacker.accessToken, { query: `query Q${n++}${megabyte} { viewer { clientId } }` }));
    }),
  );
  await sampler;
}
const namesSent = Object.values(statuses).reduce((a, b) => a + b, 0);

// 2. 1,200 repeated fields, each document new, 6 a second; the other tenant's p50.
const probe = async () => {
  const started = performance.now();
  const status = await post(other.accessToken, { query: '{ viewer { clientId } }' });
  if (status !== 200) count(status);
  return performance.now() - started;
};
const sample = async (ms: number) => {
  const out: number[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    out.push(await probe());
    await sleep(20);
  }
  return out;
};
await sample(1000);
const idle = await sample(Math.min(10_000, SECONDS * 250));
const fields = Array.from({ length: 1200 }, () => 'viewer { clientId }').join(' ');
let stop = false;
const attackLatency: number[] = [];
const attack = (async () => {
  for (let i = 0; !stop; i++) {
    const started = performance.now();
    void post(attacker.accessToken, { query: `query R${i} { ${fields} }` }).then((status) => {
      count(status);
      attackLatency.push(performance.now() - started);
    });
    await sleep(1000 / 6);
  }
})();
const loaded = await sample(SECONDS * 1000);
stop = true;
await attack;
await sleep(500);
heap.push(await heapAfterGc());

const report = {
  storage: server.runtime.database.kind,
  seconds: SECONDS,
  uniqueNameRequests: namesSent,
  statuses,
  heapAfterGcMB: { start: +(heapStart / 2 ** 20).toFixed(1), samples: heap.map((h) => +(h / 2 ** 20).toFixed(1)) },
  otherTenantP50ms: { idle: +median(idle).toFixed(1), underAttack: +median(loaded).toFixed(1), samples: loaded.length },
  attackerP50ms: +median(attackLatency).toFixed(1),
};
const failures: string[] = [];
if (Object.keys(statuses).some((s) => Number(s) >= 500)) failures.push('5xx answered');
if (Math.max(...heap) - heapStart > HEAP_GROWTH_MB * 2 ** 20) failures.push(`heap after GC grew by more than ${HEAP_GROWTH_MB} MB`);
if (median(loaded) > Math.max(2 * median(idle), median(idle) + 3)) failures.push("the other tenant's p50 more than doubled");
console.log(JSON.stringify({ ...report, failures }, null, 2));
await server.close();
process.exit(failures.length > 0 ? 1 : 0);
