import type { EnumRef } from '@pothos/core';
import { z } from 'zod';
import { builder } from './builder.js';

/**
 * Zod schemas of the closed sets, by GraphQL enum name: the REST adapter reports a refused
 * query value with the same detail the zod argument check gives, not graphql's coercion text.
 */
export const enumSchemas = new Map<string, z.ZodType>();

/**
 * A GraphQL enum whose values are the REST strings of `values`, the same `as const` array the
 * zod schemas use, so the two cannot drift. Rows hold the value as text, so a field may expose a
 * plain string column; serializing anything outside the set is an error. A string that is no
 * GraphQL name (`scheduled.cancelled`) is named by `nameOf` in the schema, and resolvers still
 * see the string itself.
 */
export function closedEnum<const V extends readonly [string, ...string[]]>(
  name: string,
  values: V,
  description: string,
  valueDescriptions: Partial<Record<V[number], string>> = {},
  nameOf: (value: V[number]) => string = (v) => v,
) {
  enumSchemas.set(name, z.enum(values.map(nameOf) as [string, ...string[]]));
  const described = Object.fromEntries(
    values.map((v) => [nameOf(v), { value: v, description: valueDescriptions[v as V[number]] ?? `The REST value "${v}".` }]),
  );
  return builder.enumType(name, { description, values: described as Record<string, { value: V[number]; description: string }> }) as unknown as EnumRef<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never, string, V[number]>;
}
