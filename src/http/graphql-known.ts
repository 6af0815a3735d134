import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { processRegularResult, type GraphQLParams, type YogaServerInstance } from 'graphql-yoga';
import type { Context as HonoContext } from 'hono';
import type { RequestContext } from '../runtime.js';
import type { HttpEnv } from '../web/hono-env.js';

/**
 * POST /graphql for a document yoga has already parsed, sent as a plain JSON body: the request goes
 * straight to yoga's operation pipeline (`getResultForParams`: the params hooks, then the envelop
 * plugins: cache, budget, validation, cost, scopes, compiled execution, masking) and its result
 * through the same status rules and JSON writer, without the Fetch adapter and request parser in
 * front of it, a large share of a hot query's CPU. Anything else (another
 * method or content type, an Accept that could pick a stream, a body of another shape, a text not
 * yet parsed, a subscription) takes yoga's whole way, so every refusal keeps yoga's own answer.
 */
export interface KnownDocumentAnswerer {
  (c: HonoContext<HttpEnv>, viaYoga: (request: Request) => Promise<Response>): Promise<Response>;
}

type Result = ExecutionResult | AsyncIterable<ExecutionResult>;

const PARAM_NAMES = new Set(['query', 'variables', 'operationName', 'extensions']);

/** An object that is neither null nor an array. */
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body yoga's params checks would pass as they are: no key of its own, a query text, objects where objects go. */
function plainParams(body: unknown): body is { query: string; variables?: Record<string, unknown> | null; operationName?: string | null; extensions?: Record<string, unknown> | null } {
  if (!isRecord(body) || typeof body.query !== 'string') return false;
  for (const key in body) if (body[key] != null && !PARAM_NAMES.has(key)) return false;
  const { variables, operationName, extensions } = body;
  return (variables == null || isRecord(variables)) && (operationName == null || typeof operationName === 'string') && (extensions == null || isRecord(extensions));
}

/** yoga's POST JSON parser's test: the first of the listed types is application/json. */
const isJsonBody = (contentType: string | undefined) => {
  const first = contentType?.split(',')[0];
  return first === 'application/json' || first?.startsWith('application/json;') === true;
};

const PROCESSORS = [
  { regular: false, types: ['text/event-stream'] },
  { regular: false, types: ['multipart/mixed'] },
  { regular: true, types: ['application/graphql-response+json', 'application/json'] },
] as const;

const matches = (processorType: string, requested: string) => {
  const [pre, suf] = processorType.split('/');
  const [askedPre, askedSuf] = requested.split('/');
  return (askedPre === '*' || askedPre === pre) && (askedSuf === '*' || askedSuf === suf);
};

/**
 * The media type yoga answers a single (not streamed) result in for this Accept header, when its
 * JSON writer is the one picked; undefined when a stream's writer or none would be. yoga's own
 * rule: utf-8 types only, in the header's order reversed, the last processor that matches wins.
 * It copies yoga's parse, q values ignored, rather than share the stream endpoint's RFC 9110 one:
 * the fast path must pick exactly what yoga would.
 */
export function regularMediaType(accept: string | undefined): string | undefined {
  const requested: string[] = [];
  for (const item of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = item.split(';');
    if ((params.find((p) => p.includes('charset=')) ?? 'charset=utf-8') === 'charset=utf-8') requested.push(type!);
  }
  requested.reverse();
  let chosen: { regular: boolean; type: string } | undefined;
  for (const processor of PROCESSORS) {
    for (const asked of requested) for (const type of processor.types) if (matches(type, asked)) chosen = { regular: processor.regular, type };
  }
  return chosen?.regular ? chosen.type : undefined;
}

export function knownDocumentAnswerer(options: {
  yoga: YogaServerInstance<RequestContext, RequestContext>;
  /** yoga's parse cache: a text in it has passed the size limits and parsed. */
  documents: { peek(query: string): DocumentNode | undefined };
  /** The status rules yoga's result step applies (useGraphQLOverHttpStatuses). */
  statuses: (result: ExecutionResult) => ExecutionResult;
}): KnownDocumentAnswerer {
  const { yoga, documents, statuses } = options;
  return async (c, viaYoga) => {
    const raw = c.req.raw;
    if (raw.method !== 'POST' || !isJsonBody(c.req.header('content-type'))) return viaYoga(raw);
    const mediaType = regularMediaType(c.req.header('accept'));
    if (!mediaType) return viaYoga(raw);
    const text = await c.req.text();
    // The body is read: yoga gets the same request again with its text.
    const again = () => viaYoga(new Request(raw.url, { method: 'POST', headers: raw.headers, body: text }));
    let params: unknown;
    try {
      params = JSON.parse(text);
    } catch {
      return again();
    }
    if (!plainParams(params)) return again();
    const document = documents.peek(params.query);
    const operation = document && getOperationAST(document, params.operationName ?? undefined);
    if (!operation || operation.operation === 'subscription') return again();
    const ctx = c.get('requestContext');
    // A context of its own over the request's, as yoga's adapter makes one (isolateObject).
    const context = Object.create(ctx) as RequestContext;
    const result = (await yoga.getResultForParams({ params: params as GraphQLParams, request: raw }, context)) as Result;
    // The request's own headers (request id, rate-limit window) go in the same plain object.
    // A function, not an arrow: yoga's writer calls it with `new`.
    function respond(body: string | null, init: ResponseInit = {}) {
      ctx.responseHeadersWritten = true;
      return new Response(body, { ...init, headers: { ...(init.headers as Record<string, string>), ...ctx.responseHeaders } });
    }
    // A query or mutation has one result; a stream here (no incremental delivery in this schema) is refused as yoga would.
    if (Symbol.asyncIterator in result) return processRegularResult(result, { Response: respond } as never, mediaType);
    // Without errors yoga's writer comes to this: 200, the JSON as it is.
    if (!result.errors?.length && !result.extensions?.http) {
      return respond(JSON.stringify(result), { status: 200, headers: { 'Content-Type': `${mediaType}; charset=utf-8` } });
    }
    return processRegularResult(statuses(result), { Response: respond } as never, mediaType);
  };
}
