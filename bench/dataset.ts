/**
 * Seeds a benchmark dataset once through the project's own CLI (apps create, clients create,
 * seed) and caches it: PostgreSQL in a named database (switchboard_bench_<N>), PGlite in
 * .bench-data/pglite-<N>/ (plus a copy the floor opens, PGlite being one process per directory).
 * .bench-data/<kind>-<N>.json records what was seeded; it is written last, so an interrupted
 * seed is redone on the next run.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import postgres from 'postgres';
import { SCHEDULING_VERSION, schedulingImports } from './scheduling-data.js';
import type { Dataset, StorageKind } from './types.js';
import { cursorKeyOf } from '../src/db/cursor.js';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DATA = path.join(ROOT, '.bench-data');

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export interface DatasetOptions {
  kind: StorageKind;
  messages: number;
  /** Server URL used to create and reach the bench database (PostgreSQL only). */
  adminUrl: string;
}

/** Environment for the CLI and the service: exactly one storage, no demo, no Redis. */
export function storageEnv(kind: StorageKind, location: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DEMO: '0', LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.DATA_DIR;
  delete env.REDIS_URL;
  if (kind === 'postgres') env.DATABASE_URL = location;
  else env.DATA_DIR = location;
  return env;
}

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function ensureDataset(options: DatasetOptions): Promise<Dataset> {
  mkdirSync(DATA, { recursive: true });
  const stateFile = path.join(DATA, `${options.kind}-${options.messages}.json`);
  let dataset: Dataset | undefined;
  if (existsSync(stateFile)) {
    const cached = JSON.parse(readFileSync(stateFile, 'utf8')) as Dataset;
    if (await stillThere(cached)) {
      log(`${options.kind}: reusing the dataset seeded at ${cached.seededAt} (${cached.messages.toLocaleString('en')} messages; delete ${path.relative(ROOT, stateFile)} to reseed)`);
      dataset = cached;
    }
  }
  dataset ??= await seed(options, stateFile);
  return ensureScheduling(dataset, stateFile);
}

/**
 * The cached scheduling step (bench/scheduling-data.ts): agents, calendars and calls imported
 * with `npm run cli -- import --app ID -`, and a client with the scheduling scopes. Redone when
 * SCHEDULING_VERSION changes (the import upserts on id) or the agents are gone.
 */
async function ensureScheduling(dataset: Dataset, stateFile: string): Promise<Dataset> {
  if (dataset.scheduling?.version === SCHEDULING_VERSION && (await schedulingThere(dataset))) return dataset;
  const env = storageEnv(dataset.kind, dataset.kind === 'postgres' ? dataset.databaseUrl! : dataset.dataDir!);
  log(`${dataset.kind}: importing the scheduling data (version ${SCHEDULING_VERSION})`);
  const started = Date.now();
  const counts: Record<string, unknown>[] = [];
  for (const { appId, body } of schedulingImports(dataset)) {
    counts.push({ app: appId, ...((await cli(env, ['import', '--app', appId, '-'], body)) as Record<string, unknown>) });
  }
  let client: { clientId: string; clientSecret: string } | undefined = dataset.scheduling;
  if (!client) {
    const created = (await cli(env, [
      'clients', 'create', '--app', dataset.appId, '--app', dataset.otherAppId, '--name', 'bench scheduling',
      '--scopes', 'scheduling:read,scheduling:write',
      '--rate', 'minute=2000000000,hour=2000000000,day=2000000000',
    ])) as { client_id: string; client_secret: string };
    client = { clientId: created.client_id, clientSecret: created.client_secret };
  }
  await analyze(dataset);
  log(`${dataset.kind}: scheduling data imported in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(counts)}`);
  const updated: Dataset = {
    ...dataset,
    scheduling: { version: SCHEDULING_VERSION, importedAt: new Date().toISOString(), clientId: client.clientId, clientSecret: client.clientSecret, counts },
  };
  writeFileSync(stateFile, `${JSON.stringify(updated, null, 2)}\n`);
  return updated;
}

async function schedulingThere(dataset: Dataset): Promise<boolean> {
  if (dataset.kind === 'pglite') return true; // the data directory is checked with the messages
  const sql = postgres(dataset.databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select count(*)::int as n from agents where app_id = ${dataset.appId}`;
    return (row?.n ?? 0) > 0;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function analyze(dataset: Dataset): Promise<void> {
  const tables = 'analyze agents, availability_exceptions, dnd_windows, scheduled_calls, app_events, scheduled_call_reminders';
  if (dataset.kind === 'postgres') {
    const sql = postgres(dataset.databaseUrl!, { max: 1, onnotice: () => {} });
    await sql.unsafe(tables);
    await sql.end();
  } else {
    const db = await PGlite.create(dataset.dataDir!, { extensions: { btree_gist, pg_trgm } });
    await db.exec(tables);
    await db.close();
  }
}

async function stillThere(dataset: Dataset): Promise<boolean> {
  if (dataset.kind === 'pglite') return !!dataset.dataDir && existsSync(dataset.dataDir) && !!dataset.floorDataDir && existsSync(dataset.floorDataDir);
  const sql = postgres(dataset.databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select count(*)::int as n from messages where app_id = ${dataset.appId}`;
    return row?.n === dataset.messages;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function seed(options: DatasetOptions, stateFile: string): Promise<Dataset> {
  const { kind, messages } = options;
  const name = `switchboard_bench_${messages}`;
  let location: string;
  let floorDataDir: string | undefined;
  if (kind === 'postgres') {
    const admin = postgres(options.adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    location = databaseUrl(options.adminUrl, name);
  } else {
    location = path.join(DATA, `pglite-${messages}`);
    floorDataDir = `${location}-floor`;
    for (const dir of [location, floorDataDir, `${location}.lock`]) rmSync(dir, { recursive: true, force: true });
  }
  const env = storageEnv(kind, location);
  const otherMessages = Math.max(1000, Math.round(messages / 10));
  log(`${kind}: seeding ${messages.toLocaleString('en')} messages in one app and ${otherMessages.toLocaleString('en')} in a second${kind === 'postgres' ? ` (database ${name})` : ` (${path.relative(ROOT, location)})`}`);
  const started = Date.now();
  const { appId } = (await cli(env, ['apps', 'create', '--name', 'Bench big app', '--timezone', 'America/New_York'])) as { appId: string };
  const { appId: otherAppId } = (await cli(env, ['apps', 'create', '--name', 'Bench second app'])) as { appId: string };
  const client = (await cli(env, [
    'clients', 'create', '--app', appId, '--app', otherAppId, '--name', 'bench',
    '--scopes', 'messages:read,campaigns:read,analytics:read',
    '--rate', 'minute=2000000000,hour=2000000000,day=2000000000',
  ])) as { client_id: string; client_secret: string };
  // The small app first, into the empty table; the big one then rebuilds the table's indexes once
  // over both (PostgreSQL), rather than inserting ten times more rows into built indexes.
  await cli(env, ['seed', '--app', otherAppId, '--messages', String(otherMessages), '--seed', '7']);
  await cli(env, ['seed', '--app', appId, '--messages', String(messages), '--seed', '42', ...(kind === 'postgres' ? ['--rebuild-indexes'] : [])]);
  // Taken once every message is written (the seed dates them before its own start), so the
  // windows that end here, a dashboard's "last 30 days", have no message after their end.
  const seededAt = new Date().toISOString();
  const probe = await probeAndAnalyze(kind, location, appId, messages);
  if (floorDataDir) cpSync(location, floorDataDir, { recursive: true });
  log(`${kind}: seeded in ${Math.round((Date.now() - started) / 1000)} s`);
  const dataset: Dataset = {
    kind,
    messages,
    ...(kind === 'postgres' ? { databaseUrl: location } : { dataDir: location, floorDataDir }),
    seededAt,
    appId,
    otherAppId,
    otherMessages,
    clientId: client.client_id,
    clientSecret: client.client_secret,
    probe,
  };
  writeFileSync(stateFile, `${JSON.stringify(dataset, null, 2)}\n`);
  return dataset;
}

/** Rows the scenarios ask for, read once; then fresh planner statistics. */
async function probeAndAnalyze(kind: StorageKind, location: string, appId: string, messages: number): Promise<Dataset['probe']> {
  const rowAt = 'select user_phone, created_at, id from messages where app_id = $1 order by created_at desc, id desc offset $2 limit 1';
  type Row = { user_phone: string; created_at: Date | string; id: string };
  const signerOf = 'select private_jwk ->> \'d\' as d from signing_keys where active order by created_at desc, kid desc limit 1';
  let at: (offset: number) => Promise<Row>;
  let newestSigningKey: () => Promise<string | undefined>;
  let finish: () => Promise<void>;
  if (kind === 'postgres') {
    const sql = postgres(location, { max: 1, onnotice: () => {} });
    at = async (offset) => (await sql.unsafe<Row[]>(rowAt, [appId, offset]))[0]!;
    newestSigningKey = async () => (await sql.unsafe<{ d: string }[]>(signerOf))[0]?.d;
    finish = async () => {
      await sql.unsafe('vacuum analyze');
      await sql.end();
    };
  } else {
    const db = await PGlite.create(location, { extensions: { btree_gist, pg_trgm } });
    at = async (offset) => (await db.query<Row>(rowAt, [appId, offset])).rows[0]!;
    newestSigningKey = async () => (await db.query<{ d: string }>(signerOf)).rows[0]?.d;
    finish = async () => {
      await db.exec('vacuum analyze');
      await db.close();
    };
  }
  const middle = await at(Math.floor(messages / 2));
  const deep = await at(Math.floor(messages * 0.9));
  const signer = await newestSigningKey();
  await finish();
  const iso = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString();
  const cursorKey = signer ? cursorKeyOf(signer).toString('base64url') : undefined;
  return { searchPhone: middle.user_phone, deep: { createdAt: iso(deep.created_at), id: deep.id }, cursorKey };
}

/** `npm run cli -- …` (with `input` on stdin): one JSON object on stdout; progress passes through on stderr. */
function cli(env: NodeJS.ProcessEnv, args: string[], input?: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '-s', 'cli', '--', ...args], { cwd: ROOT, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'inherit'] });
    if (input !== undefined) child.stdin!.end(input);
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`npm run cli -- ${args.join(' ')} exited ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)!));
      } catch {
        reject(new Error(`npm run cli -- ${args[0]}: no JSON result (${out.slice(0, 200)})`));
      }
    });
  });
}
