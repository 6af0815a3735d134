import type { Runtime } from '../runtime.js';
import { pingSubscription } from '../webhooks/service.js';
import { parseCommandArgs, requireOption } from './args.js';

/** `webhooks ping --app ID --id SUBSCRIPTION` → {"delivery_id"}: a webhook.ping queued for that endpoint. */
export async function webhooksPing(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { app: { type: 'string' }, id: { type: 'string' } });
  const delivery = await pingSubscription(runtime.database.db, { now: runtime.clock.now() }, requireOption(values.app, 'app'), requireOption(values.id, 'id'));
  return { delivery_id: delivery.id };
}
