import fc from 'fast-check';

// Values for a JSON Schema (the subset the OpenAPI document uses), as fast-check arbitraries.
// Generation aims at valid values; whether one is valid is decided afterwards by validating it
// against the document (a generated value may still break an if/then or a oneOf).

export type Schema = Record<string, any>;

const YEAR_MIN = Date.UTC(1970, 0, 1);
const YEAR_MAX = Date.UTC(2200, 0, 1);

const instant = fc.integer({ min: YEAR_MIN, max: YEAR_MAX }).map((ms) => new Date(ms).toISOString());
const day = instant.map((s) => s.slice(0, 10));
const uuid = fc.uuid({ version: 4 });
const email = fc.tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/), fc.stringMatching(/^[a-z]{1,10}$/), fc.constantFrom('com', 'org', 'io')).map(([u, d, t]) => `${u}@${d}.${t}`);

/** Text without NUL, any other code points (astral and combining ones included). */
const text = (min: number, max: number) => fc.string({ unit: 'grapheme', minLength: min, maxLength: max }).filter((s) => !s.includes('\u0000'));

export function arbitraryFor(schema: Schema | undefined, resolve: (ref: string) => Schema, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || Object.keys(schema).filter((k) => k !== 'description').length === 0) return fc.jsonValue({ maxDepth: 2 });
  if (schema.$ref) return arbitraryFor(resolve(schema.$ref), resolve, depth);
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  if (schema.oneOf || schema.anyOf) {
    const { oneOf, anyOf, ...rest } = schema;
    return fc.oneof(...((oneOf ?? anyOf) as Schema[]).map((branch) => arbitraryFor({ ...rest, ...branch, description: undefined }, resolve, depth)));
  }
  if (Array.isArray(schema.type)) {
    return fc.oneof(...(schema.type as string[]).map((type) => arbitraryFor({ ...schema, type }, resolve, depth)));
  }
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000, noNaN: true });
    case 'string':
      return stringFor(schema);
    case 'array': {
      const items = arbitraryFor(schema.items, resolve, depth + 1);
      return fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    }
    case 'object':
      return objectFor(schema, resolve, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringFor(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'date-time') return instant;
  if (schema.format === 'date') return day;
  if (schema.format === 'uuid') return uuid;
  if (schema.format === 'email') return email;
  const min: number = schema.minLength ?? 0;
  const max: number = Math.min(schema.maxLength ?? schema['x-max-characters'] ?? 40, 300);
  if (schema.pattern && schema.pattern !== '^[^\\u0000]*$') {
    return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter((s) => [...s].length >= min && [...s].length <= max);
  }
  return text(min, max);
}

function objectFor(schema: Schema, resolve: (ref: string) => Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  if (Object.keys(properties).length === 0) {
    return depth > 3 ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
  }
  const required = new Set<string>(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) record[name] = arbitraryFor(property, resolve, depth + 1);
  return fc.record(record, { requiredKeys: [...required] as never[] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** A value the schema refuses, most of the time: a wrong type, an unknown key, a dropped required key. */
export function breakValue(value: unknown, schema: Schema): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [fc.constantFrom(42, true, 'x'.repeat(600), [], null, '\u0000')];
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    options.push(fc.constant({ ...object, unexpectedKey: 1 }));
    const keys = Object.keys(object);
    if (keys.length > 0) {
      options.push(fc.constantFrom(...keys).chain((key) => fc.constantFrom(-1, 'not-valid', {}, [1], 1e12).map((bad) => ({ ...object, [key]: bad }))));
    }
    for (const key of (schema.required ?? []) as string[]) {
      const { [key]: _dropped, ...rest } = object;
      options.push(fc.constant(rest));
    }
  }
  return fc.oneof(...options);
}
