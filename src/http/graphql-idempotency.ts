import type { Context as HonoContext } from 'hono';
import { Kind, parse, print, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { KEY_HEADER, keyProblem, requestHash } from '../db/idempotency.js';
import { AppError, validationFailed, type ErrorDetail } from '../errors/app-error.js';
import { graphqlErrorBody, serverError } from '../errors/envelope.js';
import { requiredScope } from '../graphql/field-scope.js';
import { UUID_PATTERN } from '../graphql/builder.js';
import { runWithKey } from '../rest/idempotency.js';
import type { HttpEnv } from '../web/hono-env.js';

// Idempotency-Key on POST /graphql: valid on an operation that is a mutation with exactly one
// root field (one write, one answer to replay). The fingerprint is the printed document, the
// variables and the operation name; the answer replayed is the whole GraphQL response.

type Run = (request: Request) => Promise<Response>;

const refuse = (message: string): AppError => validationFailed([{ field: KEY_HEADER, code: 'invalid_value', message } satisfies ErrorDetail]);

/**
 * Runs a GraphQL POST with its Idempotency-Key, or as it is without one. `refused` writes a
 * refusal in the listener's shape. A request the schema would refuse anyway (unparsable, another
 * app, no scope) runs without the key, so its own error comes first.
 */
export async function graphqlWithKey(c: HonoContext<HttpEnv>, schema: GraphQLSchema, run: Run, refused: (error: AppError) => Response): Promise<Response> {
  const key = c.req.header(KEY_HEADER);
  const ctx = c.get('requestContext');
  if (key === undefined || c.req.method !== 'POST' || c.req.path !== '/graphql' || !ctx.auth) return run(c.req.raw);
  const problem = keyProblem(key);
  if (problem) return refused(validationFailed([problem]));
  const text = await c.req.text();
  // The body is read: yoga gets the same request again with its text.
  const again = () => run(new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body: text }));
  let params: { query?: unknown; variables?: unknown; operationName?: unknown };
  let operation: OperationDefinitionNode | undefined;
  let printed: string;
  try {
    params = JSON.parse(text) as typeof params;
  } catch {
    return again(); // yoga answers what is wrong with it
  }
  // A trusted document sent by id alone: its text (the request's fingerprint) is not known here,
  // and running it unkeyed would leave the client believing it protected.
  if (params === null || typeof params !== 'object' || typeof params.query !== 'string') {
    return refused(refuse(`${KEY_HEADER} needs the operation's text in \`query\` (not a trusted document id alone)`));
  }
  try {
    const document = parse(params.query);
    const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    operation = typeof params.operationName === 'string' ? operations.find((o) => o.name?.value === params.operationName) : operations.length === 1 ? operations[0] : undefined;
    printed = print(document);
  } catch {
    return again(); // yoga answers what is wrong with it
  }
  if (!operation) return again();
  if (operation.operation !== 'mutation') return refused(refuse(`${KEY_HEADER} applies to a mutation`));
  const [only, ...more] = operation.selectionSet.selections;
  if (!only || more.length > 0 || only.kind !== Kind.FIELD) return refused(refuse(`${KEY_HEADER} applies to an operation with exactly one mutation field`));
  const field = schema.getMutationType()?.getFields()[only.name.value];
  if (!field) return again();
  const variables = params.variables !== null && typeof params.variables === 'object' ? (params.variables as Record<string, unknown>) : {};
  const appArg = only.arguments?.find((a) => a.name.value === 'appId')?.value;
  const appId = appArg?.kind === Kind.STRING ? appArg.value : appArg?.kind === Kind.VARIABLE ? variables[appArg.name.value] : undefined;
  const needed = requiredScope(field);
  const { auth } = ctx;
  if (needed && !auth.scopes.has(needed)) return again();
  if (field.args.some((a) => a.name === 'appId') && (typeof appId !== 'string' || !UUID_PATTERN.test(appId) || !auth.apps.has(appId.toLowerCase()))) return again();
  const fingerprint = requestHash({ method: 'POST', path: '/graphql', query: printed, variables, operationName: params.operationName ?? null });
  const scope = { appId: typeof appId === 'string' ? appId.toLowerCase() : '', clientId: auth.clientId, key };
  try {
    return await runWithKey(ctx, scope, fingerprint, again, {
      succeeded: (status, body) => status === 200 && !hasErrors(body),
      answerError: (error) => {
        ctx.logger.error({ err: error }, 'error after a committed write');
        return new Response(JSON.stringify(graphqlErrorBody(serverError())), { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' } });
      },
    });
  } catch (error) {
    // A reused key (422) or one still in flight (409), in the listener's shape.
    if (error instanceof AppError) return refused(error);
    throw error;
  }
}

function hasErrors(body: string): boolean {
  try {
    const errors = (JSON.parse(body) as { errors?: unknown[] }).errors;
    return Array.isArray(errors) && errors.length > 0;
  } catch {
    return true;
  }
}
