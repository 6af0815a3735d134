import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command's options; `positionals` is how many bare arguments it takes (import's FILE): a stray one is an error. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const stray = parsed.positionals[positionals];
  if (stray !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(stray)}`);
  return parsed;
}

export function requireOption(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

/** --rate minute=N,hour=N,day=N */
export function parseRate(value: string | undefined): { minute?: number; hour?: number; day?: number } | undefined {
  if (!value) return undefined;
  const rate: Record<string, number> = {};
  for (const part of value.split(',')) {
    const [key, raw] = part.split('=');
    if (!key || !['minute', 'hour', 'day'].includes(key) || !raw || !/^\d+$/.test(raw)) {
      throw new UsageError(`--rate expects minute=N,hour=N,day=N (got "${part}")`);
    }
    if (key in rate) throw new UsageError(`--rate gives ${key} twice`);
    rate[key] = Number(raw);
  }
  return rate;
}
