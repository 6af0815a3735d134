import { readFileSync } from 'node:fs';
import { defaultExtractPersistedOperationId, usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { parse, type GraphQLError } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { AppError } from '../errors/app-error.js';

/** A manifest of trusted documents: id (a hash) to document text, and the texts themselves. */
export interface TrustedDocuments {
  byId: ReadonlyMap<string, string>;
  texts: ReadonlySet<string>;
}

export type TrustedDocumentsMode = 'strict' | 'permissive';

/** `sha256:<hex>` (the GraphQL over HTTP draft's form) and `<hex>` (GraphQL Codegen's keys) name the same document. */
const normalizeId = (id: string) => (id.startsWith('sha256:') ? id.slice('sha256:'.length) : id);

/**
 * Reads a manifest in the format GraphQL Codegen's client preset writes with `persistedDocuments`
 * (a JSON object of hash to document text). A manifest that is not one, or holds a document that
 * does not parse, stops the server at start-up rather than refusing that document's clients later.
 */
export function loadTrustedDocuments(path: string): TrustedDocuments {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: cannot read ${path} as JSON: ${(error as Error).message}`);
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: ${path} must be a JSON object of document id (hash) to document text`);
  }
  const byId = new Map<string, string>();
  for (const [id, text] of Object.entries(manifest)) {
    if (typeof text !== 'string') throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: the document of ${id} in ${path} is not a string`);
    try {
      parse(text);
    } catch (error) {
      throw new Error(`GRAPHQL_TRUSTED_DOCUMENTS: the document of ${id} in ${path} does not parse: ${(error as GraphQLError).message}`);
    }
    byId.set(normalizeId(id), text);
  }
  return { byId, texts: new Set(byId.values()) };
}

/** The id a request names: `documentId` (body or GET query string), else `extensions.persistedQuery.sha256Hash`. */
function requestedId(params: GraphQLParams, request: Request): string | null {
  const documentId = (params as { documentId?: unknown }).documentId ?? (request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : undefined);
  if (typeof documentId === 'string' && documentId) return documentId;
  return defaultExtractPersistedOperationId(params, request, {});
}

const unknownDocument = (id: string) =>
  new AppError('invalid_request', 'No trusted document has this id: the server runs the documents of its manifest only', {
    details: [{ field: 'documentId', code: 'invalid_value', message: `is not in the trusted documents manifest: ${id.slice(0, 100)}` }],
  });

const noDocument = () =>
  new AppError('invalid_request', 'Send a documentId (or extensions.persistedQuery.sha256Hash) naming a trusted document, or its text as query', {
    details: [{ field: 'documentId', code: 'required', message: 'is required without a query' }],
  });

const untrustedText = () =>
  new AppError('invalid_request', 'Only trusted documents run on this server: send the documentId of a document in its manifest, or that document\'s exact text', {
    details: [{ field: 'query', code: 'invalid_value', message: 'is not a trusted document' }],
  });

/**
 * Trusted documents: a request names a document of the manifest by id (yoga's persisted
 * operations plugin looks it up), or sends its text. In the strict mode any other text is
 * refused before parsing; it is checked at parse time so /graphql/stream, whose subscriptions
 * (graphql-sse) always carry their text and skip yoga's request parameters, is held to it too.
 * REST routes execute their own documents outside yoga and are not concerned.
 */
export function useTrustedDocuments(documents: TrustedDocuments, mode: TrustedDocumentsMode): Plugin[] {
  const lookup = usePersistedOperations({
    // Text is checked below, where every endpoint's text passes.
    allowArbitraryOperations: true,
    extractPersistedOperationId: requestedId,
    getPersistedOperation: (id) => documents.byId.get(normalizeId(id)) ?? null,
    customErrors: {
      notFound: (payload) => unknownDocument(requestedId(payload.params, payload.request) ?? ''),
      keyNotFound: noDocument,
    },
  }) as Plugin;
  if (mode === 'permissive') return [lookup];
  const strict: Plugin = {
    onParse({ params }) {
      if (!documents.texts.has(typeof params.source === 'string' ? params.source : params.source.body)) throw untrustedText();
    },
  };
  return [lookup, strict];
}
