import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { createApp, createClient } from '../../src/apps/service.js';
import type { Scope } from '../../src/auth/scopes.js';
import { closeRuntime, createRuntime } from '../../src/boot.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startServers, type RunningServers } from '../../src/http/server.js';
import { createLogger, type Logger } from '../../src/log.js';
import type { Runtime } from '../../src/runtime.js';
import type { Clock } from '../../src/time/clock.js';

/**
 * Starts the real HTTP servers on ephemeral ports. Storage is in-memory PGlite, or a fresh
 * PostgreSQL database per server when the suite runs with DATABASE_URL (as .ci/run does).
 */
export interface TestServer {
  runtime: Runtime;
  servers: RunningServers;
  url: string;
  videoUrl: string;
  /** The PostgreSQL database of this server, when the suite runs on PostgreSQL. */
  databaseUrl: string | undefined;
  /** A new app and a client for it with the given scopes; returns a token too. */
  tenant(options?: { scopes?: Scope[]; rate?: { minute?: number; hour?: number; day?: number } }): Promise<Tenant>;
  client(options: { apps: string[]; scopes: Scope[]; rate?: { minute?: number; hour?: number; day?: number } }): Promise<TestClient>;
  close(): Promise<void>;
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  token(): Promise<string>;
}

export interface Tenant extends TestClient {
  appId: string;
  accessToken: string;
}

export const allScopes: Scope[] = [
  'oauth:revoke',
  'messages:read',
  'campaigns:read',
  'analytics:read',
  'scheduling:read',
  'scheduling:write',
  'messages:send',
  'messages:ingest',
  'video:read',
  'webhooks:write',
  'events:read',
];

export async function startTestServer(overrides: Partial<Record<keyof Config, string>> = {}, options: { logger?: Logger; clock?: Clock } = {}): Promise<TestServer> {
  // An explicit DATABASE_URL joins an existing database (a second instance); otherwise a fresh one,
  // made over the direct connection when DATABASE_URL is a pooler's (scripts/pgbouncer-check.sh).
  const database = overrides.DATABASE_URL
    ? undefined
    : process.env.DATABASE_URL
      ? await createFreshDatabase(process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL)
      : undefined;
  const databaseUrl = overrides.DATABASE_URL ?? (database ? inDatabaseOf(process.env.DATABASE_URL!, database.url) : undefined);
  // The pooler's direct and replica URLs of the suite, pointed at this server's database.
  const sameDatabase = (other: string | undefined) => (other && databaseUrl ? inDatabaseOf(other, databaseUrl) : '');
  const config = loadConfig({
    ...process.env,
    DATA_DIR: 'memory',
    PORT: '0',
    VIDEO_PORT: '0',
    HOST: '127.0.0.1',
    DEMO: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_GRACE_MS: '2000',
    ...overrides,
    DATABASE_URL: databaseUrl,
    DATABASE_DIRECT_URL: overrides.DATABASE_DIRECT_URL ?? sameDatabase(process.env.DATABASE_DIRECT_URL),
    DATABASE_REPLICA_URL: overrides.DATABASE_REPLICA_URL ?? sameDatabase(process.env.DATABASE_REPLICA_URL),
  });
  const runtime = await createRuntime(config, options.logger ?? createLogger(config.LOG_LEVEL), { clock: options.clock });
  const servers = await startServers(runtime, { main: 0, video: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${servers.mainPort}`;

  const client: TestServer['client'] = async ({ apps, scopes, rate }) => {
    const created = await createClient(runtime.database.db, { apps, scopes, rate });
    return {
      clientId: created.client_id,
      clientSecret: created.client_secret,
      token: () => issueToken(url, created.client_id, created.client_secret),
    };
  };

  return {
    runtime,
    servers,
    url,
    videoUrl: `http://127.0.0.1:${servers.videoPort}`,
    databaseUrl: config.DATABASE_URL,
    client,
    tenant: async ({ scopes = allScopes, rate } = {}) => {
      const app = await createApp(runtime.database.db, { name: `Test app ${randomUUID().slice(0, 8)}` });
      const c = await client({ apps: [app.id], scopes, rate });
      return { ...c, appId: app.id, accessToken: await c.token() };
    },
    close: async () => {
      await servers.close();
      await closeRuntime(runtime);
      await database?.drop();
    },
  };
}

export async function issueToken(url: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  const body = (await res.json()) as { data: { access_token: string } };
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
  return body.data.access_token;
}

/** `url` (its server and credentials) naming the database of `databaseUrl`. */
export function inDatabaseOf(url: string, databaseUrl: string): string {
  const result = new URL(url);
  result.pathname = new URL(databaseUrl).pathname;
  return result.toString();
}

export async function createFreshDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sb_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = postgres(baseUrl, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}
