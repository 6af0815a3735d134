import {
  coerceInputValue,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type GraphQLArgument,
  type GraphQLInputField,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { z } from 'zod';
import type { ErrorDetail } from '../errors/app-error.js';
import { zodIssuesToDetails } from '../errors/zod-details.js';
import { enumSchemas } from './enums.js';

/** A variable of a route's document and its type, looked up once when the route is mounted. */
export interface VariableSlot {
  name: string;
  type: GraphQLInputType;
}

export function variableSlots(schema: GraphQLSchema, definitions: readonly VariableDefinitionNode[]): VariableSlot[] {
  return definitions.flatMap((d) => {
    const type = typeFromAST(schema, d.type) as GraphQLInputType | undefined;
    return type ? [{ name: d.variable.name.value, type }] : [];
  });
}

/**
 * The values raw REST input gives the variables, unchecked: a query or path string becomes the
 * number, boolean or list its variable takes, and an empty one is no value. The executor coerces
 * and checks them as it would any client's; when it refuses them, `coerceVariables` says which
 * and why. Checking them here first would do the executor's work twice on every request.
 */
export function variableValues(slots: readonly VariableSlot[], raw: Record<string, unknown>, fromStrings: ReadonlySet<string>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const { name, type } of slots) {
    const value = raw[name];
    if (value === undefined) continue;
    if (typeof value === 'string' && fromStrings.has(name)) {
      if (value !== '') values[name] = fromQueryString(value, type);
    } else {
      values[name] = value;
    }
  }
  return values;
}

/**
 * Turns raw REST input (path and query strings, a JSON body) into GraphQL variables, checking
 * them against the operation's variable types so a bad value is reported with its field path
 * instead of as a GraphQL coercion message.
 */
export function coerceVariables(
  schema: GraphQLSchema,
  definitions: readonly VariableDefinitionNode[],
  raw: Record<string, unknown>,
  fromStrings: ReadonlySet<string>,
): { values: Record<string, unknown>; details: ErrorDetail[]; coerced: Record<string, unknown>; detailsOf: Map<string, ErrorDetail[]> } {
  const values: Record<string, unknown> = {};
  const details: ErrorDetail[] = [];
  // The coerced values (an invalid leaf left out) and each variable's own details, for variableProblems.
  const coerced: Record<string, unknown> = {};
  const detailsOf = new Map<string, ErrorDetail[]>();
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) continue;
    let value = raw[name];
    const before = details.length;
    if (value === undefined || (value === '' && fromStrings.has(name))) {
      if (isNonNullType(type)) details.push({ field: name, code: 'required', message: 'Required' });
      detailsOf.set(name, details.slice(before));
      continue;
    }
    if (fromStrings.has(name) && typeof value === 'string') value = fromQueryString(value, type);
    const closedSet = enumSchemas.get(getNamedType(type).name);
    coerced[name] = coerceInputValue(value, type, (path, invalid, error) => {
      // A value outside a closed set gets the detail the zod check of that set gives.
      const issues = closedSet?.safeParse(invalid).error?.issues;
      if (issues) {
        details.push(...zodIssuesToDetails(issues, [name, ...path]));
        return;
      }
      // graphql-js reports a missing or unknown field of an input object at the object's path.
      const field = /^Field "([^"]+)" (?:of required type .* was not provided|is not defined by type)/.exec(error.message)?.[1];
      details.push({ field: [name, ...path, ...(field ? [field] : [])].join('.'), ...coercionDetail(error.message) });
    });
    values[name] = value;
    detailsOf.set(name, details.slice(before));
  }
  return { values, details, coerced, detailsOf };
}

/**
 * Every problem of a route's variables at once: those that do not coerce (a value outside an
 * enum, a malformed UUID) and what the root field's argument checks refuse in the rest. The
 * executor stops at coercion, before any argument is checked, so `status=lost&limit=0` would
 * otherwise name the status alone. Details come in the order of the document's variables.
 */
export function variableProblems(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  raw: Record<string, unknown>,
  fromStrings: ReadonlySet<string>,
): ErrorDetail[] {
  const { details, coerced, detailsOf } = coerceVariables(schema, operation.variableDefinitions ?? [], raw, fromStrings);
  if (details.length === 0) return details;
  const rootType = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  const selection = operation.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
  const field = selection?.kind === Kind.FIELD ? rootType?.getFields()[selection.name.value] : undefined;
  if (!field || selection?.kind !== Kind.FIELD) return details;
  // The argument each variable is given to, for its check.
  const argOf = new Map<string, GraphQLArgument>();
  for (const node of selection.arguments ?? []) {
    const arg = field.args.find((a) => a.name === node.name.value);
    if (arg && node.value.kind === Kind.VARIABLE && !argOf.has(node.value.name.value)) argOf.set(node.value.name.value, arg);
  }
  const all: ErrorDetail[] = [];
  for (const [name, own] of detailsOf) {
    all.push(...own);
    const arg = argOf.get(name);
    if (!arg || coerced[name] === undefined) continue;
    // What coercion already reported (at that path or above it) is not reported twice.
    const covered = (f: string) => own.some((d) => f === d.field || f.startsWith(`${d.field}.`));
    all.push(...inputDetails(arg, coerced[name], [name]).filter((d) => !covered(d.field)));
  }
  return all;
}

/**
 * What the checks of an argument or input field refuse in its coerced value: the argument's own
 * check, or the zod schema an input field was derived from, or those of an input object's fields.
 */
function inputDetails(input: GraphQLArgument | GraphQLInputField, value: unknown, path: readonly (string | number)[]): ErrorDetail[] {
  const extensions = input.extensions as { validator?: z.ZodType; zod?: z.ZodType } | undefined;
  const schema = extensions?.zod ?? extensions?.validator;
  if (schema) {
    const details = zodIssuesToDetails(syncIssues(schema, value), path);
    // An input object's validator that knows none of its fields checks nothing: look into them.
    if (details.length > 0 || extensions?.zod) return details;
  }
  const named = getNamedType(input.type);
  if (!isInputObjectType(named) || value === null || typeof value !== 'object') return [];
  const items = Array.isArray(value) ? value.map((item, i) => [i, item] as const) : [[undefined, value] as const];
  return items.flatMap(([index, item]) =>
    item === null || typeof item !== 'object'
      ? []
      : Object.values(named.getFields()).flatMap((field) =>
          (item as Record<string, unknown>)[field.name] === undefined ? [] : inputDetails(field, (item as Record<string, unknown>)[field.name], [...path, ...(index === undefined ? [] : [index]), field.name]),
        ),
  );
}

/** The issues of a synchronous check; a check that needs to await is left to the resolver. */
function syncIssues(schema: z.ZodType, value: unknown): readonly z.core.$ZodIssue[] {
  try {
    return schema.safeParse(value).error?.issues ?? [];
  } catch {
    return [];
  }
}

function fromQueryString(value: string, type: GraphQLInputType): unknown {
  const named = getNamedType(type).name;
  if (isListType(isNonNullType(type) ? type.ofType : type)) return value.split(',').map((v) => v.trim()).filter(Boolean);
  if ((named === 'Int' || named === 'Float') && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  if (named === 'Boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** A detail's code and message from a coercion error's text (our scalars' messages included). */
export function coercionDetail(message: string): Pick<ErrorDetail, 'code' | 'message'> {
  // Our scalars' own messages first: graphql-js wraps them in "Expected type ..." text.
  if (/must be a UUID/.test(message)) return { code: 'invalid_format', message: 'must be a UUID' };
  if (/DateTime must be an ISO 8601/.test(message)) return { code: 'invalid_format', message: 'must be an ISO 8601 date-time, e.g. 2026-03-08T14:00:00Z' };
  const dateTime = /DateTime (must be .*)$/.exec(message);
  if (dateTime) return { code: 'invalid_value', message: dateTime[1]! };
  if (/was not provided|of required type/.test(message)) return { code: 'required', message: 'Required' };
  // A whole number past GraphQL's Int is out of range like any other bound (`limit=201` is too_big).
  const outOfInt = /non 32-bit signed integer value: (-?)\d+$/.exec(message);
  if (outOfInt) return { code: outOfInt[1] ? 'too_small' : 'too_big', message: 'must be between -2147483648 and 2147483647' };
  if (/is not defined by type/.test(message)) return { code: 'unrecognized', message: 'Unrecognized field' };
  if (/cannot represent non-integer|cannot represent non-numeric|cannot represent a non boolean|cannot represent a non string|Expected type/i.test(message)) {
    return { code: 'invalid_type', message: message.replace(/;.*$/, '') };
  }
  if (/Value "[^"]*" does not exist in/.test(message)) return { code: 'invalid_value', message };

  return { code: 'invalid_type', message };
}
