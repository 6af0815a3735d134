import { createECDH } from 'node:crypto';
import { isIP } from 'node:net';
import { z } from 'zod';

/** Connections of the unfiltered pages' pool (DB_PAGE_POOL_MAX) when none is configured. */
export const DEFAULT_PAGE_POOL_MAX = 5;

/** A setting the service cannot start with: reported as one line, without a stack trace. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

// Node's timers take at most 2^31-1 ms; a longer delay silently becomes 1 ms (an idle server
// would then re-read its keys or poll in a busy loop), so every millisecond setting has a
// maximum well below it.
const HOUR_MS = 3_600_000;
const ms = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

// Every environment variable the service reads, parsed once here and nowhere else, so a bad
// value stops the start with its name rather than failing later mid-request.
const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  VIDEO_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  // A session connection to the same database when DATABASE_URL goes through a transaction-mode
  // pooler (PgBouncer): LISTEN and the migration lock outlive a transaction, so they need one.
  DATABASE_DIRECT_URL: z.string().url().optional(),
  // A streaming replica for analytics reads (lists, metrics, tags); everything else stays on DATABASE_URL.
  DATABASE_REPLICA_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./.data'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  // Unfiltered keyset pages on a pool of their own, planned once per statement (src/db/client.ts); 0: on the main pool.
  DB_PAGE_POOL_MAX: z.coerce.number().int().min(0).max(200).default(DEFAULT_PAGE_POOL_MAX),
  // postgres.js prepared statements break behind PgBouncer-style transaction poolers: 0 turns them off.
  DB_PREPARE: z.enum(['0', '1']).default('1').transform((v) => v === '1'),
  // Statements of the service's pools cancelled past this (a lock held elsewhere, a stalled
  // database): a request gets 503 instead of waiting, and its connection goes back to the pool.
  // 0: none. The CLI (seeds, imports) runs without it.
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(2_147_483_647).default(20_000),
  REDIS_URL: z.string().optional(),
  DEMO: z.enum(['0', '1']).default('1').transform((v) => v === '1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_URL: z.string().url().optional(),
  JWT_ISSUER: z.string().default('switchboard'),
  JWT_AUDIENCE: z.string().default('switchboard-api'),
  // Optional private signing key (JWK JSON); otherwise one is generated once and kept in the database.
  JWT_PRIVATE_JWK: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      try {
        parseSigningJwk(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86400).default(3600),
  // How often every instance re-reads the signing keys (a rotation takes effect within this).
  KEYS_RELOAD_MS: ms(100, 24 * HOUR_MS, 60_000),
  RATE_LIMIT_MINUTE: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_HOUR: z.coerce.number().int().min(1).default(20000),
  RATE_LIMIT_DAY: z.coerce.number().int().min(1).default(200000),
  // Failed token requests in 15 minutes: per client id from one source
  // address (then that address is refused for that client), per source address whatever the
  // client id (then the address is refused), and per client id from all addresses (then each
  // address that already failed for it gets no further guess; a clean address still gets in).
  // Reverse proxies (addresses or CIDR blocks, comma-separated) whose X-Forwarded-For names the
  // caller: the token endpoint's failure budgets count that caller, not the proxy every caller shares.
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const entries = v ? v.split(',').map((e) => e.trim()).filter(Boolean) : [];
      // Entries are named by position: a configuration error never repeats a value.
      entries.forEach((entry, i) => {
        if (!trustedProxy(entry)) ctx.addIssue({ code: 'custom', message: `entry ${i + 1} is not an IP address or CIDR block` });
      });
      return entries;
    }),
  TOKEN_FAILURES_PER_15MIN: z.coerce.number().int().min(1).default(10),
  TOKEN_FAILURES_PER_ADDRESS_15MIN: z.coerce.number().int().min(1).default(50),
  TOKEN_FAILURES_PER_CLIENT_15MIN: z.coerce.number().int().min(1).default(100),
  // A client needs a token an hour or so per instance; this bounds how fast one can mint them (and revocations).
  TOKENS_PER_CLIENT_MINUTE: z.coerce.number().int().min(1).default(120),
  // GraphiQL's own introspection query is 13 levels deep.
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).default(15),
  GRAPHQL_MAX_COMPLEXITY: z.coerce.number().int().min(10).default(2000),
  // A connection's count reads at most this many rows + 1: exact up to it, a lower bound past it.
  GRAPHQL_COUNT_CAP: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  // A JSON manifest of trusted documents (hash to document text, as GraphQL Codegen's client
  // preset writes it): requests may name a document by id; in the strict mode only its documents run.
  GRAPHQL_TRUSTED_DOCUMENTS: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  GRAPHQL_TRUSTED_DOCUMENTS_MODE: z.enum(['strict', 'permissive']).default('strict'),
  // How much query cost counts as one request against the client's rate limit (at least one per operation).
  GRAPHQL_COST_PER_REQUEST: z.coerce.number().int().min(1).max(1_000_000).default(50),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(1).default(30),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).default(5000),
  // Counted before validation, whose cost grows with the square of repeated fields: the
  // document's bytes, its fields with fragments expanded, the fields of any one selection set,
  // directives, and the length of operation names (a metric label and a cache key).
  GRAPHQL_MAX_DOCUMENT_BYTES: z.coerce.number().int().min(1024).max(1_048_576).default(32_768),
  GRAPHQL_MAX_FIELDS: z.coerce.number().int().min(10).default(1000),
  GRAPHQL_MAX_SELECTIONS: z.coerce.number().int().min(10).default(50),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(1).default(20),
  GRAPHQL_MAX_OPERATION_NAME: z.coerce.number().int().min(16).max(1024).default(128),
  // The parse and validation caches: at most this many documents, and this many bytes of document
  // text times the parsed tree's weight (an AST is several times its text).
  GRAPHQL_DOCUMENT_CACHE_ENTRIES: z.coerce.number().int().min(1).max(100_000).default(1000),
  GRAPHQL_DOCUMENT_CACHE_BYTES: z.coerce.number().int().min(65_536).default(32 * 1024 * 1024),
  // Operation names with their own metric series besides the service's own (then `other`).
  GRAPHQL_METRIC_OPERATION_NAMES: z.coerce.number().int().min(0).max(10_000).default(100),
  // Requests one client may have in flight at once, REST, GraphQL and the video host together
  // (streams excepted): one client's heavy operations queue behind its own, not other tenants'.
  CLIENT_MAX_CONCURRENT: z.coerce.number().int().min(1).max(10_000).default(16),
  // The largest answer kept for Idempotency-Key replays; a larger one is answered but not kept.
  IDEMPOTENCY_MAX_ANSWER_BYTES: z.coerce.number().int().min(256).max(16 * 1024 * 1024).default(64 * 1024),
  // An operation still resolving after this long stops at its next resolver (503).
  OPERATION_TIMEOUT_MS: ms(100, HOUR_MS, 15_000),
  SHUTDOWN_GRACE_MS: ms(0, HOUR_MS, 10000),
  // How long an idle keep-alive connection stays open. Node's 5 s is shorter than what load
  // balancers and HTTP clients keep a connection for (60 s at AWS's ALB, for one): a request
  // sent on a socket the server is closing at that moment fails with a reset. 65 s outlasts them.
  KEEP_ALIVE_TIMEOUT_MS: ms(1000, HOUR_MS, 65_000),
  // The edge without a proxy: a request's headers must arrive within HEADERS_TIMEOUT_MS of its
  // first byte, and the whole request (its body too) within REQUEST_TIMEOUT_MS, else 408 and the
  // connection is closed; so a client trickling bytes holds a socket for seconds, not minutes.
  HEADERS_TIMEOUT_MS: ms(1000, HOUR_MS, 20_000),
  REQUEST_TIMEOUT_MS: ms(1000, HOUR_MS, 30_000),
  // Open connections per listener; HEALTH_RESERVE_CONNECTIONS more are accepted for /healthz and
  // /readyz only (anything else on them is a 503), so health checks answer while the API is full.
  MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(2000),
  HEALTH_RESERVE_CONNECTIONS: z.coerce.number().int().min(0).max(10_000).default(16),
  // Open GraphQL SSE streams (/graphql/stream) per client and per app on this instance; one more
  // is refused with 429 before it opens. A stream whose reader falls behind by more than
  // STREAM_QUEUE_EVENTS events or STREAM_QUEUE_BYTES bytes (queued here and unread in the
  // socket) is closed with a `stream_lagging` error; the client resumes with `after`.
  STREAMS_PER_CLIENT: z.coerce.number().int().min(1).max(100_000).default(20),
  STREAMS_PER_APP: z.coerce.number().int().min(1).max(100_000).default(100),
  STREAM_QUEUE_EVENTS: z.coerce.number().int().min(1).max(100_000).default(500),
  STREAM_QUEUE_BYTES: z.coerce.number().int().min(1024).max(1024 * 1024 * 1024).default(1024 * 1024),
  // Days the app event log keeps an event; older ones are pruned, and resuming from one is refused.
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  WEBHOOK_ALLOW_PRIVATE: flag,
  // Browser origins allowed to call the API (comma-separated, or *); unset: CORS closed.
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((o) => o.trim()).filter(Boolean) : [])),
  // Webhook worker: poll interval (0: no poller in this process), send
  // timeout, deliveries claimed per poll, and the retry delays in seconds after each failed
  // attempt (Standard Webhooks' example schedule; each gets +-10% jitter).
  WEBHOOK_POLL_MS: ms(0, HOUR_MS, 1000),
  WEBHOOK_TIMEOUT_MS: ms(100, 60000, 15000),
  WEBHOOK_BATCH: z.coerce.number().int().min(1).max(500).default(20),
  // Sends in flight per process, per app and per endpoint (scheme, host and port): a receiver
  // that never answers holds at most its endpoint's share until the timeout, never the others'.
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  WEBHOOK_APP_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(8),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(4),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'comma-separated seconds, e.g. 5,300,1800')
    .default('5,300,1800,7200,18000,36000,50400,72000,86400')
    .transform((v) => v.split(',').map((s) => Math.round(Number(s) * 1000)))
    // A retry is a date, not a timer, but an absurd delay would overflow it: at most 7 days each.
    .refine((delays) => delays.every((d) => d <= 7 * 24 * HOUR_MS), 'each retry delay is at most 604800 seconds (7 days)'),
  // How long a rotated-out webhook secret still signs deliveries beside the new one (a rotation
  // may ask for another overlap), and how many deliveries in a row may fail after all their
  // attempts before the endpoint is disabled (0: never).
  WEBHOOK_SECRET_OVERLAP_MS: ms(0, 7 * 24 * HOUR_MS, 24 * HOUR_MS),
  WEBHOOK_DISABLE_AFTER_FAILURES: z.coerce.number().int().min(0).max(1000).default(5),
  // /metrics on the main listener with METRICS=1; with METRICS_PORT on its own listener only.
  METRICS: flag,
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export type Config = z.infer<typeof envSchema>;

/** One TRUSTED_PROXIES entry as [address, prefix length, family], or undefined when malformed. */
export function trustedProxy(entry: string): [string, number, 'ipv4' | 'ipv6'] | undefined {
  const [address = '', prefix] = entry.split('/', 2);
  const family = isIP(address);
  if (family === 0) return undefined;
  const max = family === 4 ? 32 : 128;
  const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (!(bits >= 0 && bits <= max)) return undefined;
  return [address, bits, family === 4 ? 'ipv4' : 'ipv6'];
}

/** Settings that are valid alone but not together. */
function crossChecks(config: Config): string[] {
  const problems: string[] = [];
  // Node refuses a headers timeout longer than the request's.
  if (config.HEADERS_TIMEOUT_MS > config.REQUEST_TIMEOUT_MS) problems.push('HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS');
  // Both name other connections to the PostgreSQL database of DATABASE_URL: without it there is none.
  for (const name of ['DATABASE_DIRECT_URL', 'DATABASE_REPLICA_URL'] as const) {
    if (config[name] && !config.DATABASE_URL) problems.push(`${name}: requires DATABASE_URL (embedded storage has no ${name === 'DATABASE_REPLICA_URL' ? 'replica' : 'pooler'})`);
  }
  return problems;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable counts as unset (DATABASE_URL= means embedded storage).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    // One line naming each bad variable (never its value: JWT_PRIVATE_JWK is a secret).
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const problems = crossChecks(parsed.data);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  return parsed.data;
}

/** The ES256 private key of JWT_PRIVATE_JWK, reduced to the members that make it. */
export interface SigningJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  d: string;
  kid?: string;
}

/**
 * JWT_PRIVATE_JWK must be an EC P-256 private JWK (ES256). Anything else would fail later: a
 * symmetric "oct" key would be published in the JWKS, and a key without "d" cannot sign. Throws a one-line reason that never quotes key material.
 */
export function parseSigningJwk(text: string): SigningJwk {
  let jwk: unknown;
  try {
    jwk = JSON.parse(text);
  } catch {
    throw new Error('not valid JSON (expected an ES256 private JWK)');
  }
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw new Error('expected a JSON object (an ES256 private JWK)');
  const { kty, crv, x, y, d, kid, alg, use } = jwk as Record<string, unknown>;
  if (kty !== 'EC' || crv !== 'P-256') {
    const got = typeof kty === 'string' ? ` (got kty ${kty}${typeof crv === 'string' ? `, crv ${crv}` : ''})` : '';
    throw new Error(`expected an EC P-256 key for ES256${got}`);
  }
  if (typeof x !== 'string' || typeof y !== 'string') throw new Error('"x" and "y" are required');
  if (typeof d !== 'string') throw new Error('a public key: the private part "d" is required to sign');
  if (alg !== undefined && alg !== 'ES256') throw new Error('"alg" must be ES256 when given');
  if (use !== undefined && use !== 'sig') throw new Error('"use" must be sig when given');
  if (kid !== undefined && (typeof kid !== 'string' || kid === '')) throw new Error('"kid" must be a non-empty string when given');
  // The private scalar must be valid for P-256 and x, y its public point (node:crypto's JWK
  // import would take x and y on trust, so the point is derived from d and compared).
  let point: Buffer;
  try {
    const scalar = Buffer.from(d, 'base64url');
    if (scalar.length !== 32) throw new Error('length');
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(scalar);
    point = ecdh.getPublicKey(); // 0x04 || x || y
  } catch {
    throw new Error('"d" is not a valid P-256 private key');
  }
  // Compared as text: the canonical unpadded base64url of RFC 7518, as published in the JWKS.
  if (point.subarray(1, 33).toString('base64url') !== x || point.subarray(33).toString('base64url') !== y) {
    throw new Error('"x" and "y" are not the public key of "d"');
  }
  return { kty, crv, x, y, d, ...(kid === undefined ? {} : { kid }) };
}
