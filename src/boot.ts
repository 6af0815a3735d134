import { sql } from 'drizzle-orm';
import { keyGraceSeconds, loadSigningKeys, refreshSigningKeys, type SigningKeys } from './auth/keys.js';
import { RateLimits } from './auth/rate-limit.js';
import type { Config } from './config.js';
import { openMigratedDatabase } from './db/open-migrated.js';
import { rowsOf } from './db/raw.js';
import { registerDatabaseTimeZones } from './validation/time-zone.js';
import type { Logger } from './log.js';
import { EventBus } from './events/log.js';
import { revocationPruneJob } from './auth/revocation-pruning.js';
import { schedulePruning } from './db/pruning.js';
import { eventPruneJob } from './events/prune.js';
import { TimelineBus } from './realtime/timeline-bus.js';
import type { Runtime } from './runtime.js';
import { systemClock, type Clock } from './time/clock.js';
import { WebhookWorker } from './webhooks/worker.js';

/** Opens storage, applies migrations and loads the shared signing keys. */
export async function createRuntime(config: Config, logger: Logger, options: { clock?: Clock } = {}): Promise<Runtime> {
  const clock = options.clock ?? systemClock;
  const database = await openMigratedDatabase(config, logger);
  try {
    registerDatabaseTimeZones(rowsOf<{ name: string }>(await database.db.execute(sql`select name from pg_timezone_names`)).map((r) => r.name));
    const keys = await loadSigningKeys(database.db, config.JWT_PRIVATE_JWK, keyGraceSeconds(config));
    const keyRefresh = watchSigningKeys(database.db, keys, config, logger);
    // One LISTEN for the event log; call timelines are views of it, sharing its stream caps.
    const events = new EventBus(database, logger);
    await events.start();
    const timeline = new TimelineBus(events);
    return {
      config,
      logger,
      clock,
      database,
      keys,
      tokens: { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: config.TOKEN_TTL_SECONDS },
      rateLimits: new RateLimits(config, logger),
      timeline,
      events,
      pruning: schedulePruning([eventPruneJob(database.db, config), revocationPruneJob(database.db)], clock, logger),
      keyRefresh,
      webhooks: new WebhookWorker({ database, logger, config, clock: () => clock.now() }),
    };
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}

/**
 * Key rotation reaches every instance: the key set is re-read every KEYS_RELOAD_MS, and at once
 * (at most every 5 s) when a token names an unknown kid.
 */
function watchSigningKeys(db: Runtime['database']['db'], keys: SigningKeys, config: Config, logger: Logger): NodeJS.Timeout {
  let last = 0;
  let pending: Promise<void> | undefined;
  const refresh = () =>
    (pending ??= refreshSigningKeys(db, keys, config.JWT_PRIVATE_JWK, keyGraceSeconds(config))
      .catch((error: unknown) => logger.warn({ err: error }, 'signing keys could not be reloaded'))
      .finally(() => {
        last = Date.now();
        pending = undefined;
      }));
  keys.onUnknownKid = () => (Date.now() - last < 5000 ? Promise.resolve() : refresh());
  const timer = setInterval(() => void refresh(), config.KEYS_RELOAD_MS);
  timer.unref();
  return timer;
}

export async function closeRuntime(runtime: Runtime): Promise<void> {
  clearInterval(runtime.keyRefresh);
  await runtime.pruning.stop();
  await runtime.events.close();
  // Undelivered webhooks stay in the outbox for the next start.
  await runtime.webhooks.stop();
  await runtime.rateLimits.close();
  await runtime.database.close();
}
