import { GraphQLError } from 'graphql';
import { isConnectionError, pgErrorCode, QUERY_CANCELED, UNSTORABLE_TEXT } from '../db/raw.js';
import { AppError } from '../errors/app-error.js';
import { coercionDetail } from './variables.js';

/**
 * One mapping for every error leaving the schema: AppErrors keep their type as
 * `extensions.code`, the REST `error.type`; anything unexpected is masked as server_error.
 */
export function toAppError(error: unknown): AppError | undefined {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof AppError) return current.details || !(error instanceof GraphQLError) ? current : withVariablePath(current, error);
    current = current instanceof GraphQLError ? current.originalError : current.cause;
  }
  // Database refusals that are the input's fault or a passing outage, not a bug.
  const cause = error instanceof GraphQLError ? error.originalError : error;
  if (UNSTORABLE_TEXT.has(pgErrorCode(cause) ?? '')) {
    return new AppError('validation_error', 'Input contains a character that text cannot hold (NUL, \\u0000)', {
      details: [{ field: '', code: 'invalid_value', message: 'must not contain NUL (\\u0000) characters' }],
    });
  }
  if (isConnectionError(cause)) {
    const message = pgErrorCode(cause) === QUERY_CANCELED ? 'The database did not answer in time; retry shortly' : 'The database is unavailable; retry shortly';
    return new AppError('service_unavailable', message, { headers: { 'Retry-After': '1' } });
  }
  return undefined;
}

export function appErrorToGraphQL(error: AppError, source?: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: source?.nodes,
    source: source?.source,
    positions: source?.positions,
    path: source?.path,
    originalError: error,
    extensions: {
      code: error.type,
      ...(error.details ? { details: error.details } : {}),
      // The AppError's status and headers; what a /graphql answer's status is, is decided from
      // them in src/http/graphql.ts (useGraphQLOverHttpStatuses), as GraphQL over HTTP says.
      http: { status: error.status, headers: error.headers, spec: false },
    },
  });
}

/**
 * A scalar that refuses a variable's value (DateTime, UUID) throws without knowing where it is;
 * the executor names the variable in its message: graphql-js as `Variable "$input" got invalid
 * value ... at "input.scheduledAtUtc"; ...`, graphql-jit (compiled documents) as `Variable
 * "$scheduledAtUtc" got invalid value ...` with the innermost field's name. That name becomes
 * the detail's field: every validation error names the field it refuses.

 */
function withVariablePath(error: AppError, source: GraphQLError): AppError {
  const refused = refusedVariable(source.message);
  if (!refused) return error;
  const { field } = refused;
  const detail = { field, ...coercionDetail(error.message) };
  return new AppError(error.type, `Invalid input: ${field}: ${detail.message}`, { ...error, details: [detail] });
}

/**
 * The variable an executor's coercion message names, and the dotted path inside it:
 * `Variable "$input" got invalid value ... at "input.tags[1]"; ...` is input / input.tags.1;
 * also a required variable not provided or null.
 */
export function refusedVariable(message: string): { variable: string; field: string } | undefined {
  const variable = /^Variable "\$([^"]+)" (?:got invalid value|of required type|of non-null type)/.exec(message)?.[1];
  if (!variable) return undefined;
  const at = / at "([^"]+)"; /.exec(message)?.[1];
  return { variable, field: (at ?? variable).replace(/\[(\d+)\]/g, '.$1') };
}
