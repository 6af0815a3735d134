import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { KEY_HEADER, KEY_MESSAGE } from '../db/idempotency.js';
import type { RestRoute } from '../rest/adapter.js';
import { REPLAYED_HEADER } from '../rest/idempotency.js';

// Idempotency-Key in the OpenAPI document: every REST route backed by a mutation (a write) takes
// the header and may answer a replay (Idempotent-Replayed: true), a reused key (422) or a key whose
// first request is still running (409). Applied to the built document, operation by operation.

type Json = Record<string, unknown>;

const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const isWrite = (route: RestRoute) =>
  parse(route.document).definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && (d as OperationDefinitionNode).operation === 'mutation');

const keyParameter = (reused: string) => ({
  name: KEY_HEADER,
  in: 'header',
  required: false,
  description: `Makes a retry of this write safe: a request with the same key, method, path and body within 24 hours gets the first answer again (with \`Idempotent-Replayed: true\`) and does not run again; the same key with another request is ${reused}; while the first request runs, 409 \`conflict\`. Keys belong to the client and the app.`,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$', description: KEY_MESSAGE },
});

const replayedHeader = {
  description: 'Present (`true`) when the answer is the stored first answer to an earlier request with the same Idempotency-Key.',
  schema: { type: 'string', const: 'true' },
};

/** Adds the error type to the response of its status, or a response for it. */
function addErrorType(responses: Json, status: string, type: string, description: string): void {
  const existing = responses[status] as Json | undefined;
  if (existing) {
    const allOf = ((existing.content as Json)['application/json'] as Json).schema as { allOf?: Json[] };
    const types = ((((allOf.allOf?.[1]?.properties as Json).error as Json).properties as Json).type as { enum: string[] }).enum;
    if (!types.includes(type)) {
      types.push(type);
      existing.description = `${String(existing.description)}, \`${type}\``;
    }
    return;
  }
  responses[status] = {
    description: `Error: \`${type}\` (${description})`,
    headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
    content: {
      'application/json': {
        schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { error: { type: 'object', properties: { type: { enum: [type] } } } } }] },
      },
    },
  };
}

/** The document with Idempotency-Key on every write operation of `routes` (the main listener's). */
export function withIdempotencyKeys<T extends Json>(document: T, routes: readonly RestRoute[]): T {
  const paths = document.paths as Record<string, Record<string, Json>>;
  for (const route of routes) {
    if (!isWrite(route)) continue;
    const operation = paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    if (!operation) continue;
    const parameters = ((operation.parameters as Json[] | undefined) ?? []).filter((p) => !(p.in === 'header' && p.name === KEY_HEADER));
    // Inline, not a $ref: readers (and generators) find the header by its name on the operation.
    operation.parameters = [...parameters, keyParameter(route.reusedKey === 'conflict' ? '409 `conflict`' : '422 `idempotency_key_reused`')];
    const responses = operation.responses as Record<string, Json>;
    for (const [status, response] of Object.entries(responses)) {
      if (status.startsWith('2')) response.headers = { ...(response.headers as Json), [REPLAYED_HEADER]: { $ref: `#/components/headers/${REPLAYED_HEADER}` } };
    }
    addErrorType(responses, '409', 'conflict', 'a request with this Idempotency-Key is still running');
    if (route.reusedKey !== 'conflict') addErrorType(responses, '422', 'idempotency_key_reused', 'this Idempotency-Key was used with another request');
    // Responses stay ordered by status.
    operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  }
  const components = document.components as Json;
  components.headers = { ...(components.headers as Json), [REPLAYED_HEADER]: replayedHeader };
  return document;
}
