import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { hasOrderedRootFields } from '../../src/graphql/ordered-root-fields.js';

// Which documents skip graphql-jit (pinned at 0.8.7): mutations whose root fields must run in order.
describe('hasOrderedRootFields', () => {
  it('is false for queries, subscriptions and a mutation of one plain root field', () => {
    expect(hasOrderedRootFields(parse('query { a b c }'))).toBe(false);
    expect(hasOrderedRootFields(parse('subscription { a }'))).toBe(false);
    expect(hasOrderedRootFields(parse('mutation M($x: ID!) { revoke(id: $x) { ok } }'))).toBe(false);
  });

  it('is true for a mutation with several root fields, a fragment spread or an inline fragment', () => {
    expect(hasOrderedRootFields(parse('mutation { a { ok } b { ok } }'))).toBe(true);
    expect(hasOrderedRootFields(parse('mutation { ...F } fragment F on Mutation { a { ok } }'))).toBe(true);
    expect(hasOrderedRootFields(parse('mutation { ... on Mutation { a { ok } } }'))).toBe(true);
  });

  it('looks at the operation that runs when a document has several', () => {
    const document = parse('query Q { a } mutation M { a { ok } b { ok } } mutation One { a { ok } }');
    expect(hasOrderedRootFields(document, 'Q')).toBe(false);
    expect(hasOrderedRootFields(document, 'M')).toBe(true);
    expect(hasOrderedRootFields(document, 'One')).toBe(false);
  });
});
