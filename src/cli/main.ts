import { closeRuntime, createRuntime } from '../boot.js';
import { loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import { ImportLineError } from '../importer/ndjson.js';
import { createLogger } from '../log.js';
import type { Runtime } from '../runtime.js';
import { appsCreate } from './apps-create.js';
import { UsageError } from './args.js';
import { bookingPolicySet, bookingPolicyShow } from './booking-policy.js';
import { clientsCreate, clientsRotateSecret } from './clients-create.js';
import { importCommand } from './import.js';
import { keysRetire, keysRotate } from './keys.js';
import { seedCommand } from './seed.js';
import { webhooksCreate } from './webhooks-create.js';
import { webhooksPing } from './webhooks-ping.js';
import { webhooksRotateSecret } from './webhooks-rotate-secret.js';

type Command = (runtime: Runtime, argv: string[]) => Promise<unknown>;

// Each command prints one JSON object on stdout, for scripts to parse; errors go to stderr, exit 1.
const commands: Record<string, Command> = {
  'apps create': appsCreate,
  'clients create': clientsCreate,
  'clients rotate-secret': clientsRotateSecret,
  'keys rotate': keysRotate,
  'keys retire': keysRetire,
  'booking-policy set': bookingPolicySet,
  'booking-policy show': bookingPolicyShow,
  import: importCommand,
  seed: seedCommand,
  'webhooks create': webhooksCreate,
  'webhooks rotate-secret': webhooksRotateSecret,
  'webhooks ping': webhooksPing,
};

const usage = `usage: npm run cli -- <command>
  apps create --name NAME [--timezone IANA]
  clients create --app ID [--app ID ...] --scopes s1,s2 [--rate minute=N,hour=N,day=N] [--name NAME]
  clients rotate-secret --client ID
  keys rotate
  keys retire --kid KID
  booking-policy set --app ID [--minimum-notice-minutes N] [--horizon-days N] [--buffer-before-minutes N]
      [--buffer-after-minutes N] [--max-calls-per-day N] [--max-calls-per-week N] [--alignment-minutes N]
      [--assignment least_busy|round_robin]
  booking-policy set --app ID --agent ID [the rules above] [--priority 0-4] [--weight 1-1000]
  booking-policy show --app ID
  import --app ID FILE|-
  seed --app ID --messages N [--seed N] [--rebuild-indexes]
  webhooks create --app ID --url URL --events e1,e2 [--description TEXT]
  webhooks rotate-secret --app ID --id SUBSCRIPTION [--overlap SECONDS]
  webhooks ping --app ID --id SUBSCRIPTION`;

async function main(argv: string[]): Promise<number> {
  const key = [`${argv[0]} ${argv[1]}`, argv[0]].find((k) => k && k in commands);
  if (!key) {
    process.stderr.write(`${usage}\n`);
    return 1;
  }
  const rest = argv.slice(key.split(' ').length);
  let runtime: Runtime | undefined;
  try {
    // Inside the try: a bad setting is an `error: ...` line with exit 1 like any other, not an
    // uncaught error's stack trace.
    const config = loadConfig();
    // Logs go to stderr so stdout carries only the result.
    const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, 2);
    // A seed or an import may rightly run one statement for minutes: no statement timeout here.
    runtime = await createRuntime({ ...config, DB_STATEMENT_TIMEOUT_MS: 0 }, logger);
    const result = await commands[key]!(runtime, rest);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${errorText(error)}\n`);
    return 1;
  } finally {
    if (runtime) await closeRuntime(runtime);
  }
}

function errorText(error: unknown): string {
  if (error instanceof UsageError) return `error: ${error.message}\n${usage}`;
  if (error instanceof AppError) {
    const details = error.details?.map((d) => `  ${d.field}: ${d.message}`).join('\n');
    return `error: ${error.message}${details ? `\n${details}` : ''}`;
  }
  if (error instanceof ImportLineError || error instanceof DataDirLockedError) return `error: ${error.message}`;
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}

process.exitCode = await main(process.argv.slice(2));
