import { STATUS_CODES } from 'node:http';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionResult } from 'graphql';
import { createHandler, type RequestContext as SseRequestContext } from 'graphql-sse/lib/use/fetch';
import type { Plugin } from 'graphql-yoga';

/** The code of an error graphql-sse answers by itself (bad JSON, no query, a wrong method), by status. */
const codeByStatus: Record<number, string> = { 404: 'not_found', 405: 'method_not_allowed', 406: 'invalid_request', 415: 'unsupported_media_type' };

/** An error as the client sees it: yoga's status hint (`extensions.http`) is not part of it. */
function clientError(error: GraphQLError): Record<string, unknown> {
  const { http: _http, ...extensions } = (error.extensions ?? {}) as Record<string, unknown>;
  return { ...error.toJSON(), extensions };
}

const withoutHttp = (result: ExecutionResult): ExecutionResult =>
  result.errors?.some((e) => e.extensions && 'http' in e.extensions)
    ? ({ ...result, errors: result.errors.map((e) => clientError(e)) } as unknown as ExecutionResult)
    : result;

/**
 * GraphQL over SSE (graphql-sse, distinct-connections mode; DESIGN section 1) at `endpoint`, in
 * the shape of @graphql-yoga/plugin-graphql-sse, with the document's own errors answered as on
 * /graphql: a syntax error or a broken limit (thrown by the parse hooks) was a 500, and a
 * validation error graphql-sse's "Unable to detect operation AST". Now each is a JSON
 * `{errors}` with `extensions.code` and `details` (DESIGN section 3) and the status /graphql
 * gives it; so are graphql-sse's own refusals (a body that is not JSON, no query).
 */
export function useGraphQLStream(endpoint: string, mask: (error: unknown) => GraphQLError): Plugin {
  const contexts = new WeakMap<Request, Record<string, unknown>>();
  let handler: (request: Request, context?: SseRequestContext) => Promise<Response>;

  const refuse = (errors: readonly unknown[]) => {
    const masked = errors.map((e) => mask(e));
    const status = (masked[0]?.extensions?.http as { status?: number } | undefined)?.status ?? 400;
    return [JSON.stringify({ errors: masked.map(clientError) }), { status, statusText: STATUS_CODES[status] ?? '', headers: { 'content-type': 'application/json; charset=utf-8' } }] as const;
  };

  /** graphql-sse's own refusals carry a message only: the code their status stands for. */
  const withCodes = async (response: Response): Promise<Response> => {
    if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
    const body = (await response.json()) as { errors?: { message: string; extensions?: Record<string, unknown> }[] };
    const code = codeByStatus[response.status] ?? 'invalid_request';
    const errors = (body.errors ?? []).map((e) => ({ ...e, extensions: { code, ...e.extensions } }));
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify({ ...body, errors }), { status: response.status, headers });
  };

  return {
    onYogaInit({ yoga }) {
      handler = createHandler(
        {
          onSubscribe(req, params) {
            const enveloped = yoga.getEnveloped({ ...contexts.get(req.raw), request: req.raw, params });
            let document: DocumentNode;
            try {
              document = enveloped.parse(params.query);
            } catch (error) {
              return refuse([error]);
            }
            let errors: readonly GraphQLError[];
            try {
              errors = enveloped.validate(enveloped.schema, document);
            } catch (error) {
              // graphql-armor's depth rule throws from validation instead of reporting.
              return refuse([error]);
            }
            if (errors.length > 0) return refuse(errors);
            return Promise.resolve(enveloped.contextFactory()).then((contextValue) => {
              const args = { schema: enveloped.schema, document, contextValue, variableValues: params.variables, operationName: params.operationName };
              const operation = getOperationAST(document, params.operationName);
              return operation?.operation === 'subscription' ? enveloped.subscribe(args) : enveloped.execute(args);
            });
          },
          onNext: (_ctx, _req, result) => withoutHttp(result as ExecutionResult),
        },
        yoga.fetchAPI,
      ) as typeof handler;
    },
    onRequest({ request, endResponse, serverContext }) {
      if (request.url.split('?', 1)[0]!.endsWith(endpoint)) {
        contexts.set(request, serverContext as Record<string, unknown>);
        return handler(request).then(withCodes).then(endResponse);
      }
    },
  };
}
