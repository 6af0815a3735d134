/**
 * Latency of every analytics REST read on an already seeded app, over loopback, one request at
 * a time (no concurrency: this measures the work of one request, not throughput).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/sb_rollups npx tsx bench/analytics-latency.ts --app APP_ID
 *   DATA_DIR=/tmp/sb-rollups-pglite npx tsx bench/analytics-latency.ts --app APP_ID
 *
 * It creates an API client with the CLI, starts the server (`src/main.ts`) as a child process
 * on a free port, warms each scenario up, then times `--rounds` sequential requests per
 * scenario and prints a Markdown table of p50/p95 (ms) and one JSON line. `--root DIR` runs
 * another checkout's server on the same data (to measure an older commit); seed first with
 * `npm run cli -- seed --app APP_ID --messages 1000000`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    app: { type: 'string' },
    rounds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '5' },
    root: { type: 'string' },
    only: { type: 'string' },
  },
});
const appId = values.app;
if (!appId) throw new Error('--app APP_ID is required (the seeded app)');
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
const root = path.resolve(values.root ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const storage = process.env.DATABASE_URL ? `PostgreSQL (${new URL(process.env.DATABASE_URL).pathname.slice(1)})` : `PGlite (${process.env.DATA_DIR ?? './.data'})`;

function cli(args: string[]): any {
  const run = spawnSync('npx', ['tsx', 'src/cli/main.ts', ...args], { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn' }, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`cli ${args.join(' ')} failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!);
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

// The client is created before the server starts: PGlite allows one process per DATA_DIR.
const client = cli(['clients', 'create', '--app', appId, '--scopes', 'messages:read,campaigns:read,analytics:read', '--rate', 'minute=1000000,hour=10000000,day=100000000', '--name', 'analytics-latency']);
const [port, videoPort] = [await freePort(), await freePort()];
const server = spawn('npx', ['tsx', 'src/main.ts'], {
  cwd: root,
  env: { ...process.env, PORT: String(port), VIDEO_PORT: String(videoPort), HOST: '127.0.0.1', DEMO: '0', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'inherit', 'inherit'],
  detached: true,
});
const base = `http://127.0.0.1:${port}/api/v1`;

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status < 500) break;
    } catch {
      if (i > 600) throw new Error('server did not start in 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const tokenRes = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
  });
  const token = ((await tokenRes.json()) as any).data.access_token as string;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const a = `${base}/analytics/${appId}`;
  const get = (url: string) => fetch(url, { headers });

  // A cursor 20 pages (1,000 rows) deep, and a tag and a template that exist.
  let cursor: string | null = null;
  for (let i = 0; i < 20; i++) cursor = ((await (await get(`${a}/messages?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json()) as any).pagination.nextCursor;
  const tags = ((await (await get(`${a}/tags`)).json()) as any).data as string[];
  const tag = tags.includes('vip') ? 'vip' : tags[0]!;
  const template = ((await (await get(`${a}/templates?limit=1`)).json()) as any).data[0]?.id;
  const now = Date.now();
  const iso = (days: number) => new Date(now - days * 86_400_000).toISOString();

  const scenarios: Array<[string, () => Promise<Response>]> = [
    ['messages page', () => get(`${a}/messages?limit=50`)],
    ['messages filtered (status=read, channel=sms)', () => get(`${a}/messages?limit=50&status=read&channel=sms`)],
    ['messages search (4477123)', () => get(`${a}/messages?limit=50&search=4477123`)],
    ['messages deep cursor (page 21)', () => get(`${a}/messages?limit=50&cursor=${encodeURIComponent(cursor!)}`)],
    ['campaigns search', () => fetch(`${a}/campaigns/search`, { method: 'POST', headers, body: JSON.stringify({ limit: 50, filter: { name: 'promo', tags: [tag] } }) })],
    ['templates', () => get(`${a}/templates`)],
    ['template detail', () => get(`${a}/templates/${template}`)],
    ['tags', () => get(`${a}/tags`)],
    [`tag stats (${tag})`, () => get(`${a}/tags/${encodeURIComponent(tag)}/stats`)],
    ['daily metrics 90 d, America/New_York', () => get(`${a}/metrics/daily?startDate=${iso(90)}&endDate=${iso(0)}&timezone=America/New_York`)],
    ['daily metrics 90 d, Asia/Kathmandu', () => get(`${a}/metrics/daily?startDate=${iso(90)}&endDate=${iso(0)}&timezone=Asia/Kathmandu`)],
    ['summary (default 30 d)', () => get(`${a}/metrics/summary`)],
    ['summary 90 d', () => get(`${a}/metrics/summary?startDate=${iso(90)}&endDate=${iso(0)}`)],
    ['summary, a past week (days 60-53)', () => get(`${a}/metrics/summary?startDate=${iso(60)}&endDate=${iso(53)}`)],
  ].filter(([name]) => !values.only || (name as string).includes(values.only)) as Array<[string, () => Promise<Response>]>;

  const results: Array<{ scenario: string; p50: number; p95: number; status: number }> = [];
  for (const [name, call] of scenarios) {
    let status = 0;
    for (let i = 0; i < warmup; i++) {
      const res = await call();
      status = res.status;
      await res.arrayBuffer();
    }
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      const res = await call();
      await res.arrayBuffer();
      times.push(performance.now() - started);
      status = res.status;
    }
    times.sort((x, y) => x - y);
    const pct = (p: number) => Math.round(times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]! * 10) / 10;
    results.push({ scenario: name, p50: pct(50), p95: pct(95), status });
  }

  const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
  console.log(`\n${storage}, app ${appId}, ${rounds} sequential requests per row after ${warmup} warm-up; ${os.cpus().length} CPUs, load average ${load}, Node ${process.version}\n`);
  console.log('| scenario | p50 ms | p95 ms | status |\n|---|---:|---:|---:|');
  for (const r of results) console.log(`| ${r.scenario} | ${r.p50} | ${r.p95} | ${r.status} |`);
  console.log(JSON.stringify({ storage, load, results }));
} finally {
  // The server's whole process group (npx, tsx, node), by its id.
  try {
    process.kill(-server.pid!, 'SIGTERM');
  } catch {}
  await new Promise((r) => server.once('exit', r));
}
