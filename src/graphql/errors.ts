import { GraphQLError } from 'graphql';
import { isConnectionError, pgErrorCode, UNSTORABLE_TEXT } from '../db/raw.js';
import { AppError } from '../errors/app-error.js';

/**
 * One mapping for every error leaving the schema: AppErrors keep their type as
 * `extensions.code` (DESIGN section 3); anything unexpected is masked as server_error.
 */
export function toAppError(error: unknown): AppError | undefined {
  let current: unknown = error;
  while (current instanceof Error) {
    if (current instanceof AppError) return current;
    current = current instanceof GraphQLError ? current.originalError : current.cause;
  }
  // Database refusals that are the input's fault or a passing outage, not a bug.
  const cause = error instanceof GraphQLError ? error.originalError : error;
  if (UNSTORABLE_TEXT.has(pgErrorCode(cause) ?? '')) {
    return new AppError('validation_error', 'Input contains a character that text cannot hold (NUL, \\u0000)', {
      details: [{ field: '', code: 'invalid_value', message: 'must not contain NUL (\\u0000) characters' }],
    });
  }
  if (isConnectionError(cause)) return new AppError('service_unavailable', 'The database is unavailable; retry shortly', { headers: { 'Retry-After': '1' } });
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
      http: { status: error.status, headers: error.headers },
    },
  });
}
