import { importNdjson } from '../importer/ndjson.js';
import { importTypes } from '../importer/types.js';
import type { Runtime } from '../runtime.js';
import { requireAppOption } from './app-option.js';
import { parseCommandArgs, UsageError } from './args.js';
import { progressLine } from './progress.js';

export async function importCommand(runtime: Runtime, argv: string[]) {
  const { values, positionals } = parseCommandArgs(argv, { app: { type: 'string' } }, 1);
  const file = positionals[0];
  if (!file) throw new UsageError('import needs a FILE (or - for stdin)');
  const appId = await requireAppOption(runtime, values.app);
  const progress = progressLine('import');
  const counts = await importNdjson({
    db: runtime.database.db,
    appId,
    input: file === '-' ? process.stdin : file,
    types: importTypes,
    clock: runtime.clock,
    progress: (lines, done) => progress(`${lines.toLocaleString('en')} lines read`, done),
  });
  return counts;
}
