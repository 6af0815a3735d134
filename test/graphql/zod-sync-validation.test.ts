import SchemaBuilder from '@pothos/core';
import ZodPlugin from '@pothos/plugin-zod';
import { execute, parse, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

/**
 * patches/@pothos+plugin-zod: argument validation parses synchronously and falls back to
 * parseAsync only for a schema zod cannot check synchronously. A resolver with validated
 * arguments then stays synchronous: an async parse makes more garbage on every request.
 */
function schema() {
  const builder = new SchemaBuilder<{ Context: object }>({
    plugins: [ZodPlugin],
    // Required by scope-auth's global option types; that plugin is not enabled here.
    scopeAuth: { authScopes: () => ({}) },
    zod: { validationError: (error) => `invalid: ${error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}` },
  });
  builder.queryType({
    fields: (t) => ({
      echo: t.string({
        args: { text: t.arg.string({ required: true, validate: { schema: z.string().min(2).transform((s) => s.toUpperCase()) } }) },
        resolve: (_root, args) => args.text,
      }),
      echoAsync: t.string({
        args: { text: t.arg.string({ required: true, validate: { schema: z.string().refine(async (s) => s !== 'no', 'refused') } }) },
        resolve: (_root, args) => args.text,
      }),
    }),
  });
  return builder.toSchema();
}

describe('Pothos zod plugin, synchronous parse first (patched)', () => {
  const s = schema();
  const run = (query: string) => execute({ schema: s, document: parse(query), contextValue: {} });

  it('validates and transforms synchronously: execute returns no promise', () => {
    const result = run('{ echo(text: "hi") }');
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toEqual({ data: { echo: 'HI' } });
  });

  it('refuses invalid input synchronously through validationError', () => {
    const result = run('{ echo(text: "h") }');
    expect(result).not.toBeInstanceOf(Promise);
    expect((result as ExecutionResult).errors?.[0]?.message).toMatch(/^invalid: text /);
  });

  it('still runs async refinements, through parseAsync', async () => {
    expect(await run('{ echoAsync(text: "yes") }')).toEqual({ data: { echoAsync: 'yes' } });
    const refused = await run('{ echoAsync(text: "no") }');
    expect(refused.errors?.[0]?.message).toBe('invalid: text refused');
  });
});
