import { eq } from 'drizzle-orm';
import { seedAnalytics } from '../analytics/seed.js';
import { apps } from '../apps/tables.js';
import type { Runtime } from '../runtime.js';
import { parseCommandArgs, requireOption, UsageError } from './args.js';
import { progressBar } from './progress.js';

export async function seedCommand(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { app: { type: 'string' }, messages: { type: 'string' }, seed: { type: 'string' } });
  const appId = requireOption(values.app, 'app');
  if (!/^[0-9a-f-]{36}$/i.test(appId)) throw new UsageError('--app must be an app id (UUID)');
  const count = Number(requireOption(values.messages, 'messages'));
  if (!Number.isInteger(count) || count < 1 || count > 50_000_000) throw new UsageError('--messages must be a whole number from 1 to 50,000,000');
  const [app] = await runtime.database.db.select({ id: apps.id }).from(apps).where(eq(apps.id, appId)).limit(1);
  if (!app) throw new UsageError(`no app ${appId} (create one with: apps create --name NAME)`);
  const started = Date.now();
  const bar = progressBar('seed messages', count);
  const result = await seedAnalytics({ db: runtime.database.db, appId, messages: count, seed: values.seed ? Number(values.seed) : undefined, progress: bar });
  return { appId, ...result, seconds: Math.round((Date.now() - started) / 100) / 10 };
}
