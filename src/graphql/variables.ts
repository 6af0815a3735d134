import {
  coerceInputValue,
  getNamedType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type VariableDefinitionNode,
} from 'graphql';
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
): { values: Record<string, unknown>; details: ErrorDetail[] } {
  const values: Record<string, unknown> = {};
  const details: ErrorDetail[] = [];
  for (const definition of definitions) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) continue;
    let value = raw[name];
    if (value === undefined || (value === '' && fromStrings.has(name))) {
      if (isNonNullType(type)) details.push({ field: name, code: 'required', message: 'Required' });
      continue;
    }
    if (fromStrings.has(name) && typeof value === 'string') value = fromQueryString(value, type);
    const closedSet = enumSchemas.get(getNamedType(type).name);
    coerceInputValue(value, type, (path, invalid, error) => {
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
  }
  return { values, details };
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
