/**
 * The floor: a raw node:http server running each scenario's SQL on the same data, with no
 * framework, auth, GraphQL or validation. postgres.js on PostgreSQL (same pool sizes, prepared
 * statements and plan_cache_mode as the service); PGlite in-process on a copy of the DATA_DIR.
 * Started by bench/run.ts: FLOOR_PORT, and FLOOR_DATABASE_URL or FLOOR_DATA_DIR.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import postgres from 'postgres';
import { scenarios } from '../scenarios/index.js';

/**
 * Runs one statement; with `settings`, after them in a read-only transaction; `plannedOnce` on the
 * pool whose statements are planned once (the service's page pool).
 */
type Run = (sql: string, params: unknown[], settings?: string[], plannedOnce?: boolean) => Promise<Record<string, unknown>[]>;

async function connect(): Promise<{ run: Run; close: () => Promise<void> }> {
  const url = process.env.FLOOR_DATABASE_URL;
  if (url) {
    // The service's connection settings (src/db/client.ts): prepared statements, each planned for
    // its values, but for the unfiltered pages' pool, which plans each statement once.
    const pool = (max: number, plan_cache_mode: string) => postgres(url, { max, prepare: true, connection: { plan_cache_mode, jit: 'off' } });
    const sql = pool(Number(process.env.FLOOR_POOL_MAX ?? 10), 'force_custom_plan');
    const pages = pool(Number(process.env.FLOOR_PAGE_POOL_MAX ?? 5), 'force_generic_plan');
    const one = (runner: postgres.Sql | postgres.TransactionSql, text: string, params: unknown[]) =>
      runner.unsafe(text, params as never[], { prepare: true }) as unknown as Promise<Record<string, unknown>[]>;
    return {
      run: (text, params, settings, plannedOnce) =>
        settings?.length
          ? (sql.begin('read only', async (tx) => {
              for (const setting of settings) await tx.unsafe(setting);
              return one(tx, text, params);
            }) as unknown as Promise<Record<string, unknown>[]>)
          : one(plannedOnce ? pages : sql, text, params),
      close: async () => {
        await Promise.all([sql.end({ timeout: 5 }), pages.end({ timeout: 5 })]);
      },
    };
  }
  const dir = process.env.FLOOR_DATA_DIR;
  if (!dir) throw new Error('FLOOR_DATABASE_URL or FLOOR_DATA_DIR is required');
  const db = await PGlite.create(dir, { extensions: { btree_gist, pg_trgm } });
  return {
    run: async (text, params, settings) =>
      settings?.length
        ? db.transaction(async (tx) => {
            await tx.exec(['set transaction read only', ...settings].join(';\n'));
            return (await tx.query<Record<string, unknown>>(text, params)).rows;
          })
        : (await db.query<Record<string, unknown>>(text, params)).rows,
    close: () => db.close(),
  };
}

const db = await connect();
const routes = new Map(scenarios.filter((s) => s.floor).map((s) => [`/${s.name}`, s.floor!]));

/** A POST's JSON body, read the plain node:http way (what any server answering that request must do). */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://floor');
  const floor = routes.get(url.pathname);
  if (!floor) {
    res.writeHead(url.pathname === '/healthz' ? 200 : 404, { 'content-type': 'application/json' }).end('{}');
    return;
  }
  try {
    const built = floor.build?.(url.searchParams);
    const input = req.method === 'POST' ? await readJson(req) : undefined;
    const rows = built ? await db.run(built.sql, built.params, built.settings) : await db.run(floor.sql, floor.params(url.searchParams, input), undefined, floor.plannedOnce);
    const body = JSON.stringify(floor.respond(rows, url.searchParams));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  } catch (error) {
    process.stderr.write(`floor ${url.pathname}: ${(error as Error).message}\n`);
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"floor query failed"}');
  }
});

server.listen(Number(process.env.FLOOR_PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ listening: typeof address === 'object' && address ? address.port : 0 })}\n`);
});

const stop = () => server.close(() => void db.close().then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
