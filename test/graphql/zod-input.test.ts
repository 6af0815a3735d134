import SchemaBuilder from '@pothos/core';
import ZodPlugin from '@pothos/plugin-zod';
import { execute, parse, printType, type ExecutionResult, type GraphQLInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodInputFields } from '../../src/graphql/zod-input.js';

function newBuilder() {
  const builder = new SchemaBuilder<{
    Context: object;
    Scalars: { DateTime: { Input: Date; Output: Date }; JSON: { Input: unknown; Output: unknown }; UUID: { Input: string; Output: string } };
  }>({
    plugins: [ZodPlugin],
    // Required by scope-auth's global option types; that plugin is not enabled here.
    scopeAuth: { authScopes: () => ({}) },
    zod: { validationError: (error) => `invalid: ${error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}` },
  });
  for (const name of ['DateTime', 'JSON', 'UUID'] as const) builder.scalarType(name, { serialize: (v) => v as never, parseValue: (v) => v as never });
  return builder;
}

/** zodInputFields on a builder of its own: the GraphQL type and requiredness come from zod, descriptions from hints. */
function build(define: (builder: ReturnType<typeof newBuilder>) => unknown) {
  const builder = newBuilder();
  const input = define(builder);
  builder.queryType({
    fields: (t) => ({
      echo: t.field({ type: 'JSON', args: { input: t.arg({ type: input as never, required: true }) }, resolve: (_root, args) => args.input }),
    }),
  });
  return builder.toSchema();
}

const nested = z.object({ n: z.number().int() });
const shape = z.object({
  text: z.string().min(2),
  id: z.uuid().optional(),
  count: z.number().int(),
  ratio: z.number().nullable(),
  flag: z.boolean().default(false),
  at: z.date(),
  kind: z.enum(['a', 'b']),
  fixed: z.literal('x'),
  data: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string()),
  note: z.string().trim().max(3).nullish().transform((v) => v ?? null),
  child: nested.optional(),
});

describe('zodInputFields', () => {
  it('derives each field from the zod object; hints give descriptions and what zod cannot tell', () => {
    const schema = build((builder) => {
      const Nested = builder.inputType('Nested', { fields: (t) => zodInputFields(t as never, nested, { n: 'A number.' }) });
      return builder.inputType('Derived', {
        fields: (t) =>
          zodInputFields(t as never, shape, {
            text: 'Text.',
            id: 'An id; null is refused.',
            count: 'A count.',
            ratio: 'A ratio.',
            flag: 'A flag; null is refused.',
            at: 'When.',
            kind: 'a or b.',
            fixed: { description: 'Fixed; null is refused.', required: false },
            data: 'Data; null is refused.',
            tags: 'Tags.',
            note: { description: 'A note.', validate: true },
            child: { description: 'A child; null is refused.', type: Nested as never },
          }),
      });
    });
    const printed = printType(schema.getType('Derived') as GraphQLInputObjectType);
    const fields = printed
      .split('\n')
      .filter((line) => /^ {2}\w+: /.test(line))
      .map((line) => line.trim());
    // Pothos prints fields sorted.
    expect(fields).toEqual(
      [
        'text: String!',
        'id: UUID',
        'count: Int!',
        'ratio: Float',
        'flag: Boolean',
        'at: DateTime!',
        'kind: String!',
        'fixed: String',
        'data: JSON',
        'tags: [String!]!',
        'note: String',
        'child: Nested',
      ].sort(),
    );
    expect(printed).toContain('"""A note."""');
  });

  it('refuses to build a nullable field whose schema refuses null unless it says what null does, or nulls are dropped', () => {
    const optional = z.object({ id: z.uuid().optional() });
    expect(() => build((builder) => builder.inputType('Silent', { fields: (t) => zodInputFields(t as never, optional, { id: 'An id.' }) }))).toThrow(/id: .*refuses null/);
    const dropped = build((builder) => builder.inputType('Dropped', { fields: (t) => zodInputFields(t as never, optional, { id: 'An id.' }, { nullAsAbsent: true }) }));
    expect(printType(dropped.getType('Dropped') as GraphQLInputObjectType)).toContain('An id. null: the same as leaving it out.');
  });

  it('validates a field marked validate with its zod schema, without the optional around it', () => {
    const schema = build((builder) =>
      builder.inputType('Validated', { fields: (t) => zodInputFields(t as never, z.object({ note: shape.shape.note }), { note: { description: 'A note.', validate: true } }) }),
    );
    const run = (query: string) => execute({ schema, document: parse(query), contextValue: {} }) as ExecutionResult;
    expect(run('{ echo(input: { note: " ab " }) }').data).toEqual({ echo: { note: 'ab' } });
    expect(run('{ echo(input: {}) }').data).toEqual({ echo: {} });
    expect(run('{ echo(input: { note: "abcd" }) }').errors?.[0]?.message).toMatch(/^invalid: input\.note /);
  });

  it('refuses a zod type it cannot map when no hint gives the GraphQL type', () => {
    expect(() =>
      build((builder) =>
        builder.inputType('Custom', { fields: (t) => zodInputFields(t as never, z.object({ odd: z.custom<string>(() => true) }), { odd: 'Odd.' }) }),
      ),
    ).toThrow('odd: no GraphQL type for zod custom; give one in its hint');
  });
});
