import { eq } from 'drizzle-orm';
import { apps } from '../apps/tables.js';
import type { Runtime } from '../runtime.js';
import { requireOption, UsageError } from './args.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--app`: a UUID naming an existing app, or a usage error that says which it is not. */
export async function requireAppOption(runtime: Runtime, value: string | undefined): Promise<string> {
  const appId = requireOption(value, 'app');
  if (!UUID.test(appId)) throw new UsageError('--app must be an app id (UUID)');
  const [app] = await runtime.database.db.select({ id: apps.id }).from(apps).where(eq(apps.id, appId)).limit(1);
  if (!app) throw new UsageError(`no app ${appId} (create one with: apps create --name NAME)`);
  return app.id;
}
