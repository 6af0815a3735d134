// The one error class services throw; the HTTP edge maps `type` to a status and the error
// envelope, GraphQL maps it to `extensions.code`, so both APIs name an error the same way.

export const errorStatus = {
  invalid_request: 400,
  unsupported_grant_type: 400,
  invalid_json: 400,
  validation_error: 400,
  invalid_client: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  outside_service_window: 422,
  no_matching_products: 422,
  // The same Idempotency-Key with another request (the IETF Idempotency-Key draft's 422).
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  server_error: 500,
  service_unavailable: 503,
  // Inside a GraphQL stream only: its reader fell behind and the stream was closed (resume with `after`).
  stream_lagging: 503,
} as const;

export type ErrorType = keyof typeof errorStatus;

export const detailCodes = [
  'required',
  'invalid_type',
  'invalid_format',
  'invalid_value',
  'too_small',
  'too_big',
  'too_long',
  'unrecognized',
  // A resume point (an event id) older than the event log's retention.
  'cursor_expired',
] as const;
/**
 * Why a slot is refused: the reasons availability's explanation names, and the codes of a 409
 * booking or reschedule refusal, so a caller reads one vocabulary in both places.
 */
export const slotRefusalCodes = [
  'outside_working_hours',
  'conflicts_call',
  'buffer_overlap',
  'blocked',
  'do_not_disturb',
  'minimum_notice',
  'beyond_horizon',
  'misaligned',
  'daily_limit',
  'weekly_limit',
] as const;
export type SlotRefusalCode = (typeof slotRefusalCodes)[number];
export type DetailCode = (typeof detailCodes)[number] | SlotRefusalCode;

export interface ErrorDetail {
  field: string;
  message: string;
  code: DetailCode;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Overrides the status implied by the type (invalid_client: 400 for missing or malformed credentials, 401 for wrong ones). */
  status?: number;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly type: ErrorType;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(type: ErrorType, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.type = type;
    this.status = options.status ?? errorStatus[type];
    this.details = options.details;
    this.headers = options.headers;
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const conflict = (message: string) => new AppError('conflict', message);
export const forbidden = (message = 'Not authorized for this resource') => new AppError('forbidden', message);

export function validationFailed(
  details: ErrorDetail[],
  type: 'validation_error' | 'invalid_request' = 'validation_error',
): AppError {
  const first = details[0];
  const message = first ? `Invalid input: ${first.field ? `${first.field}: ` : ''}${first.message}` : 'Invalid input';
  return new AppError(type, message, { details });
}

/**
 * Runs a service call whose error details name fields of one argument's value (a body, an input
 * object); under GraphQL those fields sit below the argument: `prefix` is its name. REST strips
 * the prefix again (its details name body paths).
 */
export async function detailsUnder<T>(prefix: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof AppError) || !error.details) throw error;
    const details = error.details.map((d) => ({ ...d, field: d.field ? `${prefix}.${d.field}` : prefix }));
    const message = error.message.startsWith('Invalid input') ? validationFailed(details).message : error.message;
    throw new AppError(error.type, message, { details, status: error.status, headers: error.headers, cause: error.cause });
  }
}

/** 405 for a known path asked with another method; `Allow` lists the methods it takes (RFC 9110). */
export function methodNotAllowedError(allowed: readonly string[], message = 'Method not allowed on this path'): AppError {
  const order = (m: string) => (methodOrder.indexOf(m) + 1 || methodOrder.length + 1);
  const sorted = [...new Set(allowed)].sort((a, b) => order(a) - order(b));
  return new AppError('method_not_allowed', message, { headers: { Allow: sorted.join(', ') } });
}
const methodOrder = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
