/**
 * Two builds of the service side by side on one dataset: this checkout's and another's
 * (BENCH_AB_OTHER, a checkout with its own `npm ci` and build, a `git worktree` say). Both run at
 * once, pinned to the same CPU, and are driven in turn in short rounds (BENCH_AB_ROUNDS of
 * BENCH_AB_SECONDS each, order alternating), so the drift of a shared machine's speed, tens of per
 * cent within minutes, falls on both alike. Per scenario it prints each build's median CPU µs a
 * request and the median over the rounds of this build's ÷ the other's. PostgreSQL only.
 *
 *   BENCH_AB_OTHER=/tmp/before npx tsx bench/ab.ts graphql_messages_page messages_page
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { ensureDataset, ROOT } from './dataset.js';
import { load, pinning, startService, type LoadResult, type Running } from './procs.js';
import { scenarios } from './scenarios/index.js';
import { issueToken, median } from './service-client.js';
import type { HttpRequest, ScenarioContext } from './types.js';

const log = (message: string) => process.stderr.write(`[ab] ${message}\n`);

const OTHER = process.env.BENCH_AB_OTHER;
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 12);
const SECONDS = Number(process.env.BENCH_AB_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_AB_CONNECTIONS ?? 32);

/** One round on one build: its CPU µs a request (/proc) and req/s. */
async function round(pin: ReturnType<typeof pinning>, service: Running, req: HttpRequest, seconds: number): Promise<{ cpuUs: number; result: LoadResult }> {
  const before = service.cpuSeconds();
  const result = await load(pin, { url: service.url + req.path, method: req.method, headers: req.headers, body: req.body, connections: CONNECTIONS, duration: seconds });
  const after = service.cpuSeconds();
  if (result.errors > 0 || result.requests === 0) throw new Error(`${service.url}: ${result.errors} errors, ${result.requests} requests`);
  return { cpuUs: ((after! - before!) * 1e6) / result.requests, result };
}

async function main() {
  if (!OTHER) throw new Error('BENCH_AB_OTHER: the other checkout (built, with node_modules) to compare with');
  const names = process.argv.slice(2);
  const selected = scenarios.filter((s) => names.includes(s.name) && !s.compute && !s.rate && !s.rotate);
  if (selected.length === 0 || selected.length !== names.length) throw new Error('name plain request scenarios of bench/scenarios (no paced, computed or rotating ones)');
  for (const dir of [ROOT, OTHER]) {
    log(`building ${dir}`);
    if (spawnSync('npm', ['run', '-s', 'build'], { cwd: dir, stdio: 'inherit' }).status !== 0) throw new Error(`build failed in ${dir}`);
  }
  const dataset = await ensureDataset({
    kind: 'postgres',
    messages: Number(process.env.BENCH_MESSAGES ?? 1_000_000),
    adminUrl: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  });
  const pin = pinning(os.availableParallelism());
  const builds = [await startService(dataset, pin), await startService(dataset, pin, { root: OTHER })] as const;
  try {
    const tokens = await Promise.all(builds.map((b) => issueToken(b, dataset)));
    for (const scenario of selected) {
      const requests = tokens.map((t) => scenario.request({ dataset, token: t, schedulingToken: t } satisfies ScenarioContext));
      log(`${scenario.name}: warm-up, then ${ROUNDS} rounds of ${SECONDS} s each way`);
      for (const i of [0, 1] as const) await round(pin, builds[i], requests[i]!, 4);
      const cpu: [number[], number[]] = [[], []];
      const rps: [number[], number[]] = [[], []];
      const ratios: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 === 0 ? [0, 1] : [1, 0];
        const got: number[] = [];
        for (const i of order) {
          const { cpuUs, result } = await round(pin, builds[i]!, requests[i]!, SECONDS);
          cpu[i as 0 | 1].push(cpuUs);
          rps[i as 0 | 1].push(result.rps);
          got[i] = cpuUs;
        }
        ratios.push(got[0]! / got[1]!);
      }
      process.stdout.write(
        `${scenario.name}\tthis ${median(cpu[0]).toFixed(0)} µs/req (${median(rps[0]).toFixed(0)} req/s)\tother ${median(cpu[1]).toFixed(0)} µs/req (${median(rps[1]).toFixed(0)} req/s)` +
          `\tthis ÷ other CPU, median of ${ROUNDS} rounds: ${median(ratios).toFixed(3)} (range ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})\n`,
      );
    }
  } finally {
    await Promise.all(builds.map((b) => b.stop()));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
