import fc from 'fast-check';
import { buildSchema, type GraphQLField, type GraphQLObjectType, getNamedType, isObjectType, isScalarType, isEnumType, isNonNullType, isListType, type GraphQLInputType } from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gql } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

// Random operations within the abuse limits never produce a 500 or a server_error.
// Operations are built from the committed schema.graphql: random root fields, random argument
// values (right and wrong types), random sub-selections, aliases and fragments.
const RUNS = Number(process.env.PROPERTY_RUNS ?? 120);
const SEED = Number(process.env.PROPERTY_SEED ?? 20261123);
const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));

const { server, tenant } = useServer({ tenant: { rate: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 } } });

const scalarValue = (type: GraphQLInputType, appId: string): fc.Arbitrary<string> => {
  const named = getNamedType(type);
  const wrong = fc.oneof(fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)), fc.integer().map(String), fc.constant('null'), fc.constant('true'));
  const right: Record<string, fc.Arbitrary<string>> = {
    UUID: fc.oneof(fc.constant(JSON.stringify(appId)), fc.uuid().map((u) => JSON.stringify(u))),
    Int: fc.integer({ min: -5, max: 500 }).map(String),
    Float: fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    Boolean: fc.boolean().map(String),
    DateTime: fc.date({ noInvalidDate: true, min: new Date('2025-01-01'), max: new Date('2027-12-31') }).map((d) => JSON.stringify(d.toISOString())),
    String: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('2026-03-01', 'America/New_York', 'all', 'sent', 'blocked')).map((s) => JSON.stringify(s)),
    JSON: fc.constantFrom('{}', '{mon: [["09:00", "17:00"]]}', '"x"', '[1]'),
  };
  if (isEnumType(named)) return fc.constantFrom(...named.getValues().map((v) => v.name));
  if (isScalarType(named)) return fc.oneof({ weight: 4, arbitrary: right[named.name] ?? fc.constant('"x"') }, { weight: 1, arbitrary: wrong });
  return fc.constant('{}');
};

function selection(type: GraphQLObjectType, depth: number): fc.Arbitrary<string> {
  const fields = Object.values(type.getFields()).filter((f) => f.args.every((a) => !isNonNullType(a.type)));
  const leaf = fields.filter((f) => !isObjectType(getNamedType(f.type)));
  const nested = depth > 0 ? fields.filter((f) => isObjectType(getNamedType(f.type))) : [];
  const one = fc.oneof(
    ...(leaf.length ? [fc.constantFrom(...leaf.map((f) => f.name))] : []),
    ...(nested.length ? [fc.constantFrom(...nested).chain((f) => selection(getNamedType(f.type) as GraphQLObjectType, depth - 1).map((s) => `${f.name} { ${s} }`))] : []),
  );
  return fc.array(fc.tuple(one, fc.option(fc.constantFrom('a1', 'a2'), { nil: undefined })), { minLength: 1, maxLength: 4 }).map((items) =>
    [...new Set(items.map(([s, alias]) => (alias ? `${alias}_${s.split(' ')[0]}: ${s}` : s)))].join(' '),
  );
}

function rootField(rootName: 'Query' | 'Mutation', appId: string): fc.Arbitrary<string> {
  const root = schema.getType(rootName) as GraphQLObjectType;
  return fc.constantFrom(...Object.values(root.getFields())).chain((field: GraphQLField<unknown, unknown>) => {
    const args = field.args.map((a) =>
      (isNonNullType(a.type) ? fc.constant(true) : fc.boolean()).chain((present) =>
        present ? (isListType(isNonNullType(a.type) ? a.type.ofType : a.type) ? scalarValue(a.type, appId).map((v) => `${a.name}: [${v}]`) : scalarValue(a.type, appId).map((v) => `${a.name}: ${v}`)) : fc.constant(''),
      ),
    );
    const named = getNamedType(field.type);
    const sub = isObjectType(named) ? selection(named, 2).map((s) => ` { ${s} }`) : fc.constant('');
    return fc.tuple(fc.tuple(...args), sub).map(([a, s]) => `${field.name}${a.filter(Boolean).length ? `(${a.filter(Boolean).join(', ')})` : ''}${s}`);
  });
}

describe('GraphQL: random operations', () => {
  it('queries: never a 500, never server_error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rootField('Query', tenant.appId), { minLength: 1, maxLength: 2 }), async (fields) => {
        const query = `query { ${fields.map((f, i) => `r${i}: ${f}`).join(' ')} }`;
        const res = await gql(server.url, tenant.accessToken, query);
        expect(res.status, query).toBeLessThan(500);
        for (const error of res.body.errors ?? []) expect(error.extensions?.code, `${query}\n${error.message}`).not.toBe('server_error');
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('mutations: never a 500, never server_error', async () => {
    await fc.assert(
      fc.asyncProperty(rootField('Mutation', tenant.appId), async (field) => {
        const query = `mutation { ${field} }`;
        const res = await gql(server.url, tenant.accessToken, query);
        expect(res.status, query).toBeLessThan(500);
        for (const error of res.body.errors ?? []) expect(error.extensions?.code, `${query}\n${error.message}`).not.toBe('server_error');
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('arbitrary text as a document: a 4xx or a GraphQL error, never a 500', async () => {
    const text = fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('{', 'query {', '{ __schema { types { name } } }', 'fragment F on Query { ...F } { ...F }', 'subscription { x }'));
    await fc.assert(
      fc.asyncProperty(text, async (query) => {
        const res = await gql(server.url, tenant.accessToken, query);
        expect(res.status, query).toBeLessThan(500);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
