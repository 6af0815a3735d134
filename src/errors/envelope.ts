import { AppError, methodNotAllowedError, type ErrorDetail } from './app-error.js';
import { systemClock, type Clock } from '../time/clock.js';
import { isoInstant } from '../time/iso-instant.js';

// The REST response envelope: `data` and `meta.timestamp` on success, `error` on failure.
export const timestamp = (clock: Clock = systemClock) => isoInstant(clock.now());

export function errorEnvelope(error: AppError, clock?: Clock) {
  return {
    error: {
      type: error.type,
      message: error.message,
      timestamp: timestamp(clock),
      ...(error.details ? { details: error.details satisfies ErrorDetail[] } : {}),
    },
  };
}

export function errorResponse(error: AppError, requestId?: string, clock?: Clock): Response {
  const headers = new Headers({ 'content-type': 'application/json; charset=utf-8', ...(error.headers ?? {}) });
  if (requestId) headers.set('X-Request-Id', requestId);
  // A failed client authentication is no bearer matter: it carries a Basic challenge when Basic was used, else none.
  if (error.status === 401 && error.type !== 'invalid_client' && !headers.has('WWW-Authenticate')) headers.set('WWW-Authenticate', 'Bearer realm="switchboard"');
  return new Response(JSON.stringify(errorEnvelope(error, clock)), { status: error.status, headers });
}

/** The video host's envelope: `{ ok: false, error: { type, message } }`. */
export const videoErrorEnvelope = (error: AppError) => ({ ok: false, error: { type: error.type, message: error.message } });

/** The standard OAuth endpoints' error (RFC 6749 5.2): the protocol's code and a description. */
export const oauthErrorBody = (code: string, description: string) => ({ error: code, error_description: description });

/** A GraphQL response carrying one error, for what the GraphQL listener answers before the schema runs. */
export const graphqlErrorBody = (error: AppError) => ({
  errors: [{ message: error.message, extensions: { code: error.type, ...(error.details ? { details: error.details } : {}) } }],
});

export const serverError = () => new AppError('server_error', 'Internal server error');

/** A known path's other methods: 405 method_not_allowed with `Allow`, not 404. */
export const methodNotAllowed = (allowed: readonly string[]) => (): never => {
  throw methodNotAllowedError(allowed, `Use ${allowed.join(' or ')}`);
};
