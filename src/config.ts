import { z } from 'zod';

// Every environment variable the service reads, parsed once (STYLE: "Config is read once").
const flag = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true');

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  VIDEO_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('./.data'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  // postgres.js prepared statements break behind PgBouncer-style poolers (PITFALLS: Storage).
  DB_PREPARE: z.enum(['0', '1']).default('1').transform((v) => v === '1'),
  REDIS_URL: z.string().optional(),
  DEMO: z.enum(['0', '1']).default('1').transform((v) => v === '1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_URL: z.string().url().optional(),
  JWT_ISSUER: z.string().default('switchboard'),
  JWT_AUDIENCE: z.string().default('switchboard-api'),
  // Optional private signing key (JWK JSON); otherwise one is generated once and kept in the database.
  JWT_PRIVATE_JWK: z.string().optional(),
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86400).default(3600),
  // How often every instance re-reads the signing keys (a rotation takes effect within this).
  KEYS_RELOAD_MS: z.coerce.number().int().min(100).default(60_000),
  RATE_LIMIT_MINUTE: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_HOUR: z.coerce.number().int().min(1).default(20000),
  RATE_LIMIT_DAY: z.coerce.number().int().min(1).default(200000),
  TOKEN_FAILURES_PER_15MIN: z.coerce.number().int().min(1).default(10),
  // GraphiQL's own introspection query is 13 levels deep.
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).default(15),
  GRAPHQL_MAX_COMPLEXITY: z.coerce.number().int().min(10).default(2000),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(1).default(30),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).default(5000),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10000),
  WEBHOOK_ALLOW_PRIVATE: flag,
  // Browser origins allowed to call the API (comma-separated, or *); unset: CORS closed.
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((o) => o.trim()).filter(Boolean) : [])),
  // Webhook worker (DESIGN section 7): poll interval (0: no poller in this process), send
  // timeout, deliveries claimed per poll, and the retry delays in seconds after each failed
  // attempt (Standard Webhooks' example schedule; each gets +-10% jitter).
  WEBHOOK_POLL_MS: z.coerce.number().int().min(0).default(1000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60000).default(15000),
  WEBHOOK_BATCH: z.coerce.number().int().min(1).max(500).default(20),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'comma-separated seconds, e.g. 5,300,1800')
    .default('5,300,1800,7200,18000,36000,50400,72000,86400')
    .transform((v) => v.split(',').map((s) => Math.round(Number(s) * 1000))),
  // /metrics on the main listener with METRICS=1; with METRICS_PORT on its own listener only.
  METRICS: flag,
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

export type Config = z.infer<typeof envSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable counts as unset (DATABASE_URL= means embedded storage).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
