import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { defineRoute, prepareRoute } from '../../src/rest/adapter.js';
import { restRoutes } from '../../src/rest/routes.js';

// The adapter checks scope and app before the input with the first root field's rule: a document
// that picks between root fields (@include/@skip) must need one scope for all of them.
describe('a route document with several root fields', () => {
  const route = (document: string) => defineRoute({ method: 'GET', path: '/x/:appId', document, respond: () => ({ body: {} }) });

  it('is refused when its root fields need different scopes', () => {
    const mixed = route(`query($appId: UUID!, $tags: Boolean = false) {
      scheduledCalls(appId: $appId) @skip(if: $tags) { limit }
      campaignTags(appId: $appId) @include(if: $tags)
    }`);
    expect(() => prepareRoute(schema, mixed)).toThrow(/root fields scheduledCalls and campaignTags differ in scope or error type/);
  });

  it('is prepared with the scope they share (GET availability with explain)', () => {
    const availability = restRoutes.find((r) => r.path === '/video/:appId/availability')!;
    const prepared = prepareRoute(schema, availability);
    expect(prepared.scope).toBe('scheduling:read');
    expect(prepared.rootErrorType).toBe('invalid_request');
    expect(prepared.queryNames.has('explain')).toBe(true);
  });
});
