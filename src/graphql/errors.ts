import { GraphQLError } from 'graphql';
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
