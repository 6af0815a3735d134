import { createClient, rotateClientSecret } from '../apps/service.js';
import type { Runtime } from '../runtime.js';
import { parseCommandArgs, parseRate, requireOption } from './args.js';

export async function clientsCreate(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, {
    app: { type: 'string', multiple: true },
    scopes: { type: 'string' },
    rate: { type: 'string' },
    name: { type: 'string' },
  });
  const scopes = requireOption(values.scopes, 'scopes').split(',').map((s) => s.trim()).filter(Boolean);
  return createClient(runtime.database.db, {
    apps: values.app ?? [],
    scopes: scopes as never,
    rate: parseRate(values.rate),
    name: values.name,
  });
}

/** `clients rotate-secret --client ID`: prints {"client_id", "client_secret"} (the new secret, once). */
export async function clientsRotateSecret(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { client: { type: 'string' } });
  return rotateClientSecret(runtime.database.db, requireOption(values.client, 'client'));
}
