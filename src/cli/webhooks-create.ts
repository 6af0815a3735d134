import type { Runtime } from '../runtime.js';
import { createSubscription } from '../webhooks/service.js';
import { parseCommandArgs, requireOption } from './args.js';

/** `webhooks create --app ID --url URL --events e1,e2` → {"id", "secret"} */
export async function webhooksCreate(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, {
    app: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'string' },
    description: { type: 'string' },
  });
  const eventTypes = requireOption(values.events, 'events')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const { subscription, secret } = await createSubscription(
    runtime.database.db,
    { allowPrivate: runtime.config.WEBHOOK_ALLOW_PRIVATE, now: runtime.clock.now() },
    { appId: requireOption(values.app, 'app'), url: requireOption(values.url, 'url'), eventTypes, description: values.description },
  );
  return { id: subscription.id, secret };
}
