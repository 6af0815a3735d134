import { seedAnalytics } from '../analytics/seed.js';
import type { Runtime } from '../runtime.js';
import { requireAppOption } from './app-option.js';
import { parseCommandArgs, requireOption, UsageError } from './args.js';
import { progressBar, progressLine } from './progress.js';

export async function seedCommand(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { app: { type: 'string' }, messages: { type: 'string' }, seed: { type: 'string' }, 'rebuild-indexes': { type: 'boolean' } });
  const count = Number(requireOption(values.messages, 'messages'));
  if (!Number.isInteger(count) || count < 1 || count > 50_000_000) throw new UsageError('--messages must be a whole number from 1 to 50,000,000');
  // Anything else would be NaN, which the generator reads as 0: every "seed" would make the same data.
  if (values.seed !== undefined && !/^\d{1,9}$/.test(values.seed)) throw new UsageError('--seed must be a whole number from 0 to 999,999,999');
  const appId = await requireAppOption(runtime, values.app);
  const started = Date.now();
  const bar = progressBar('seed messages', count);
  const step = progressLine('seed');
  const result = await seedAnalytics({
    db: runtime.database.db,
    copy: runtime.database.kind === 'postgres',
    appId,
    now: runtime.clock.now(),
    messages: count,
    seed: values.seed ? Number(values.seed) : undefined,
    progress: bar,
    // On PostgreSQL: rebuilt when the table is empty, or always when asked.
    rebuildIndexes: values['rebuild-indexes'] ? true : 'auto',
    step: (message) => step(message, true),
  });
  return { appId, ...result, seconds: Math.round((Date.now() - started) / 100) / 10 };
}
