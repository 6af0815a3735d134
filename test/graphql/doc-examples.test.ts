import { readdirSync, readFileSync } from 'node:fs';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';

// Every ```graphql example in the docs is a document the schema accepts as it stands, so an
// example cannot drift from schema.graphql (a renamed field, a string where an enum now is).
const docs = new URL('../../docs/', import.meta.url);
const examples = readdirSync(docs)
  .filter((name) => name.endsWith('.md'))
  .flatMap((name) => {
    const text = readFileSync(new URL(name, docs), 'utf8');
    return [...text.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m, i) => ({ where: `${name} #${i + 1}`, source: m[1]! }));
  });

describe('GraphQL examples in docs/', () => {
  it('finds them', () => expect(examples.length).toBeGreaterThan(5));

  it.each(examples.map((e) => [e.where, e.source] as const))('%s validates against the schema', (_where, source) => {
    // A literal elided with … ("…0001" for an id) is a placeholder for the reader's own value.
    const errors = validate(schema, parse(source))
      .map((e) => e.message)
      .filter((message) => !/found "[^"]*…[^"]*"/.test(message));
    expect(errors).toEqual([]);
  });
});
