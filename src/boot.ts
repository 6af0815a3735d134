import { loadSigningKeys } from './auth/keys.js';
import { RateLimits } from './auth/rate-limit.js';
import type { Config } from './config.js';
import { openDatabase } from './db/client.js';
import { runMigrations } from './db/migrate.js';
import type { Logger } from './log.js';
import type { Runtime } from './runtime.js';
import { WebhookWorker } from './webhooks/worker.js';

/** Opens storage, applies migrations and loads the shared signing keys. */
export async function createRuntime(config: Config, logger: Logger): Promise<Runtime> {
  const database = await openDatabase(config, logger);
  try {
    await runMigrations(database);
    const keys = await loadSigningKeys(database.db, config.JWT_PRIVATE_JWK);
    return {
      config,
      logger,
      database,
      keys,
      tokens: { issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE, ttlSeconds: config.TOKEN_TTL_SECONDS },
      rateLimits: new RateLimits(config, logger),
      webhooks: new WebhookWorker({ database, logger, config }),
    };
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}

export async function closeRuntime(runtime: Runtime): Promise<void> {
  // Undelivered webhooks stay in the outbox for the next start.
  await runtime.webhooks.stop();
  await runtime.rateLimits.close();
  await runtime.database.close();
}
