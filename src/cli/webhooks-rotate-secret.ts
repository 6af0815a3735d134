import type { Runtime } from '../runtime.js';
import { rotateSecret } from '../webhooks/service.js';
import { parseCommandArgs, requireOption, UsageError } from './args.js';

/**
 * `webhooks rotate-secret --app ID --id SUBSCRIPTION [--overlap SECONDS]` → {"id", "secret",
 * "previous_secret_expires_at"}: the new secret, shown once; the old one signs too until then.
 */
export async function webhooksRotateSecret(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { app: { type: 'string' }, id: { type: 'string' }, overlap: { type: 'string' } });
  if (values.overlap !== undefined && !/^\d+$/.test(values.overlap)) throw new UsageError(`--overlap expects whole seconds (got "${values.overlap}")`);
  const rotated = await rotateSecret(
    runtime.database.db,
    { now: runtime.clock.now(), defaultOverlapMs: runtime.config.WEBHOOK_SECRET_OVERLAP_MS },
    { appId: requireOption(values.app, 'app'), id: requireOption(values.id, 'id'), overlapSeconds: values.overlap === undefined ? null : Number(values.overlap) },
  );
  return { id: rotated.subscription.id, secret: rotated.secret, previous_secret_expires_at: rotated.previousSecretExpiresAt?.toISOString() ?? null };
}
