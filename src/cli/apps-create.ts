import { createApp } from '../apps/service.js';
import type { Runtime } from '../runtime.js';
import { parseCommandArgs, requireOption } from './args.js';

export async function appsCreate(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { name: { type: 'string' }, timezone: { type: 'string' } });
  const app = await createApp(runtime.database.db, { name: requireOption(values.name, 'name'), timezone: values.timezone });
  return { appId: app.id };
}
