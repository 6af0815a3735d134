import { z } from 'zod';
import { parseInput } from '../errors/zod-details.js';
import type { Runtime } from '../runtime.js';
import { agentBookingPolicyInput, bookingPolicyInput, snakeCase } from '../scheduling/policy.js';
import { getBookingPolicy, setAgentBookingPolicy, setBookingPolicy } from '../scheduling/policy.service.js';
import { requireAppOption } from './app-option.js';
import { parseCommandArgs, UsageError } from './args.js';

// `booking-policy set|show`: the setBookingPolicy and setAgentBookingPolicy mutations from the
// shell, through the same schemas and service functions.

const kebab = (name: string) => snakeCase(name).replaceAll('_', '-');
const ruleOptions = Object.keys(bookingPolicyInput.shape).filter((name) => name !== 'assignment');
const agentOptions = ['priority', 'weight'];
const options = {
  app: { type: 'string' },
  agent: { type: 'string' },
  assignment: { type: 'string' },
  ...Object.fromEntries([...ruleOptions, ...agentOptions].map((name) => [kebab(name), { type: 'string' }])),
} as const satisfies Record<string, { type: 'string' }>;

/** A whole number option; anything else is a usage error naming it (the schema checks the range). */
function wholeNumber(option: string, value: string): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${option} must be a whole number`);
  return Number(value);
}

/**
 * `booking-policy set --app ID [--RULE N ...] [--assignment least_busy|round_robin]` replaces the
 * app's policy whole and prints it; with `--agent ID`, the agent's own rules, `--priority` and
 * `--weight` instead, and prints {"agentId", "bookingOverrides", "assignmentPriority", "assignmentWeight"}.
 */
export async function bookingPolicySet(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, options);
  const given = values as Record<string, string | undefined>;
  const appId = await requireAppOption(runtime, values.app);
  const input: Record<string, unknown> = {};
  for (const name of [...ruleOptions, ...agentOptions]) {
    const raw = given[kebab(name)];
    if (raw !== undefined) input[name] = wholeNumber(kebab(name), raw);
  }
  const ctx = { runtime };
  if (values.agent === undefined) {
    for (const name of agentOptions) if (input[name] !== undefined) throw new UsageError(`--${name} is an agent's setting: give --agent ID`);
    if (values.assignment !== undefined) input.assignment = values.assignment;
    return setBookingPolicy(ctx, appId, parseInput(z.object({ input: bookingPolicyInput }), { input }, 'invalid_request').input);
  }
  if (values.assignment !== undefined) throw new UsageError('--assignment is the app\'s setting: leave out --agent');
  const agentId = parseInput(z.object({ agent: z.uuid() }), { agent: values.agent }, 'invalid_request').agent;
  const row = await setAgentBookingPolicy(ctx, appId, agentId, parseInput(z.object({ input: agentBookingPolicyInput }), { input }, 'invalid_request').input);
  return { agentId: row.id, bookingOverrides: row.bookingPolicy, assignmentPriority: row.assignmentPriority, assignmentWeight: row.assignmentWeight };
}

/** `booking-policy show --app ID`: the app's policy in force (every rule off and least_busy until one is set). */
export async function bookingPolicyShow(runtime: Runtime, argv: string[]) {
  const { values } = parseCommandArgs(argv, { app: { type: 'string' } });
  return getBookingPolicy({ runtime }, await requireAppOption(runtime, values.app));
}
