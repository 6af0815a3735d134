/**
 * Instructions a request costs the service, counted by valgrind's callgrind: they repeat within a
 * few per cent where req/s and CPU time do not (a shared machine's speed drifts by tens of per cent
 * within minutes), though they are not time (docs/development.md). The built service runs under
 * callgrind twice per scenario, answering BENCH_IR_REQUESTS requests (default 100 and 400, after
 * the same warm-up); the difference of the two totals over the difference of the counts is the
 * cost of a request, start-up, warm-up and shutdown cancelling out. PostgreSQL datasets only (a
 * PGlite service's instructions would count the database too).
 *
 *   npx tsx bench/instructions.ts graphql_messages_page messages_page
 *
 * Needs valgrind, and the dataset `npm run bench` seeded (.bench-data; BENCH_MESSAGES as there).
 * Builds first, as the harness does.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDataset, ROOT } from './dataset.js';
import { startService } from './procs.js';
import { scenarios } from './scenarios/index.js';
import { issueToken, send } from './service-client.js';
import type { Dataset, HttpRequest, Scenario, ScenarioContext } from './types.js';

const log = (message: string) => process.stderr.write(`[instructions] ${message}\n`);

const [fewer, more] = (process.env.BENCH_IR_REQUESTS ?? '100,400').split(',').map(Number) as [number, number];
const WARMUP = Number(process.env.BENCH_IR_WARMUP ?? 300);
const CONNECTIONS = Number(process.env.BENCH_IR_CONNECTIONS ?? 8);

/** `count` requests over CONNECTIONS concurrent loops; any answer but 200 stops the count. */
async function drive(base: string, request: () => HttpRequest, count: number): Promise<void> {
  let left = count;
  const loop = async () => {
    while (left > 0) {
      left--;
      const { status, body } = await send(base, request());
      if (status !== 200) throw new Error(`answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
}

/** The instructions the service ran, start to exit, answering `count` requests after the warm-up. */
async function countRun(dataset: Dataset, scenario: Scenario, count: number, dir: string): Promise<number> {
  const out = path.join(dir, `callgrind.${scenario.name}.${count}`);
  const prefix = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`, `--log-file=${out}.log`];
  const service = await startService(dataset, {}, { prefix, graceMs: 300_000 });
  try {
    const ctx: ScenarioContext = { dataset, token: await issueToken(service, dataset), schedulingToken: await issueToken(service, dataset.scheduling!) };
    await drive(service.url, () => scenario.request(ctx), WARMUP);
    await drive(service.url, () => scenario.request(ctx), count);
  } finally {
    await service.stop();
  }
  const totals = /^(?:summary|totals): (\d+)/m.exec(readFileSync(out, 'utf8'));
  if (!totals) throw new Error(`no instruction total in ${out}`);
  return Number(totals[1]);
}

async function main() {
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed');
  const names = process.argv.slice(2);
  const selected = scenarios.filter((s) => names.includes(s.name));
  if (selected.length === 0 || selected.length !== names.length) throw new Error(`name scenarios of bench/scenarios: ${scenarios.map((s) => s.name).join(', ')}`);
  log('building (npm run build)');
  if (spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  const dataset = await ensureDataset({
    kind: 'postgres',
    messages: Number(process.env.BENCH_MESSAGES ?? 1_000_000),
    adminUrl: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchboard-ir-'));
  try {
    for (const scenario of selected) {
      if (scenario.compute || scenario.rate) log(`${scenario.name}: counted as a plain request loop`);
      log(`${scenario.name}: ${fewer} then ${more} requests under callgrind`);
      const a = await countRun(dataset, scenario, fewer, dir);
      const b = await countRun(dataset, scenario, more, dir);
      const perRequest = (b - a) / (more - fewer);
      process.stdout.write(`${scenario.name}\t${Math.round(perRequest).toLocaleString('en')} instructions a request\t(${a.toLocaleString('en')} at ${fewer}, ${b.toLocaleString('en')} at ${more})\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
