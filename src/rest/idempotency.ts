import type { Context as HonoContext } from 'hono';
import type { Scope } from '../auth/scopes.js';
import { claimKey, completeClaim, KEY_HEADER, keyProblem, releaseClaim, releaseUntilDone, requestHash, type KeyScope, type StoredAnswer } from '../db/idempotency.js';
import { errorResponse, serverError } from '../errors/envelope.js';
import { AppError, conflict, validationFailed } from '../errors/app-error.js';
import { UUID_PATTERN } from '../graphql/builder.js';
import { toAppError } from '../graphql/errors.js';
import type { RequestContext } from '../runtime.js';
import type { HttpEnv } from '../web/hono-env.js';

// The HTTP side of Idempotency-Key (the store is db/idempotency.ts): a write request with a key
// runs once; a retry gets the stored first answer with Idempotent-Replayed: true. REST routes
// backed by a mutation use keyedRoute; the GraphQL listener uses runWithKey directly.

export const REPLAYED_HEADER = 'Idempotent-Replayed';

// Headers of the request, not of the answer: a replay carries its own.
const ownHeaders = /^(x-request-id|x-ratelimit-[a-z]+|retry-after|content-length)$/i;

/**
 * Runs `execute` under the key: replays a stored answer, or claims the key, runs, and stores the
 * answer when the write committed (or the answer is a success, `succeeded`). An answer refused
 * before its write committed frees the key. A thrown error after the write committed is answered
 * (and stored) as `answerError` shapes it.
 */
export async function runWithKey(
  ctx: RequestContext,
  scope: KeyScope,
  fingerprint: string,
  execute: () => Promise<Response>,
  options: { succeeded: (status: number, body: string) => boolean; answerError: (error: unknown) => Response; reusedKey?: 'conflict' },
): Promise<Response> {
  const db = ctx.runtime.database.db;
  const claimed = await claimKey(db, scope, fingerprint, ctx.runtime.clock.now()).catch((error: unknown) => {
    throw options.reusedKey && error instanceof AppError && error.type === 'idempotency_key_reused' ? conflict(error.message) : error;
  });
  if ('replay' in claimed) return replay(claimed.replay);
  const { claim } = claimed;
  ctx.idempotency = claim;
  let response: Response;
  try {
    response = await execute();
  } catch (error) {
    if (!claim.applied) {
      if (!claim.reachedOutside) await releaseUntilDone(() => releaseClaim(db, claim), ctx.logger);
      throw error;
    }
    response = options.answerError(error);
  } finally {
    ctx.idempotency = undefined;
  }
  const body = await response.text();
  try {
    if (claim.applied || options.succeeded(response.status, body)) {
      const tooLarge = Buffer.byteLength(body) > ctx.runtime.config.IDEMPOTENCY_MAX_ANSWER_BYTES;
      await completeClaim(db, claim, tooLarge ? undefined : { status: response.status, headers: answerHeaders(response.headers), body });
    } else if (!claim.reachedOutside) {
      await releaseUntilDone(() => releaseClaim(db, claim), ctx.logger);
    }
  } catch (err) {
    // The write's own outcome stands; the key stays claimed and goes stale (a committed write never reruns).
    ctx.logger.error({ err }, 'could not record an idempotency key');
  }
  return new Response(body, { status: response.status, headers: response.headers });
}

function answerHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!ownHeaders.test(name)) kept[name] = value;
  });
  return kept;
}

/** The first answer as stored; the request's own headers (id, rate limit) are added by the listener. */
function replay(answer: StoredAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, [REPLAYED_HEADER]: 'true' } });
}

/** The key a request carries, refused (400, details naming the header) when malformed. */
export function keyOf(c: HonoContext<HttpEnv>, errorType: 'validation_error' | 'invalid_request'): string | undefined {
  const key = c.req.header(KEY_HEADER);
  if (key === undefined) return undefined;
  const problem = keyProblem(key);
  if (problem) throw validationFailed([problem], errorType);
  return key;
}

/**
 * A REST route backed by a mutation, with its Idempotency-Key. A caller the route refuses (no
 * scope, another app's path, a malformed app id) runs it without the key, so the refusal comes
 * first and nothing of another app is ever replayed. The fingerprint is the method, the path, the
 * query and the body (as JSON: key order does not matter).
 */
export async function keyedRoute(
  c: HonoContext<HttpEnv>,
  route: { scope: Scope | undefined; errorType: 'validation_error' | 'invalid_request'; reusedKey?: 'conflict' },
  execute: () => Promise<Response>,
): Promise<Response> {
  const ctx = c.get('requestContext');
  const auth = ctx.auth;
  if (!auth || c.req.header(KEY_HEADER) === undefined) return execute();
  const appId = c.req.param('appId');
  if (route.scope && !auth.scopes.has(route.scope)) return execute();
  if (appId !== undefined && (!UUID_PATTERN.test(appId) || !auth.apps.has(appId.toLowerCase()))) return execute();
  const key = keyOf(c, route.errorType)!;
  const text = await c.req.text();
  let body: unknown = text;
  try {
    body = text.trim() === '' ? null : (JSON.parse(text) as unknown);
  } catch {
    // Not JSON: the route refuses it; the text itself is the fingerprint.
  }
  const queryAt = c.req.url.indexOf('?');
  const query = queryAt === -1 ? [] : [...new URLSearchParams(c.req.url.slice(queryAt + 1).split('#', 1)[0])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const fingerprint = requestHash({ method: c.req.method, path: c.req.path, query, body });
  const requestId = c.get('requestId');
  return runWithKey(ctx, { appId: appId?.toLowerCase() ?? '', clientId: auth.clientId, key }, fingerprint, execute, {
    reusedKey: route.reusedKey,
    succeeded: (status) => status < 300,
    answerError: (error) => {
      const appError = toAppError(error);
      if (!appError || appError.type === 'server_error') ctx.logger.error({ err: error }, 'error after a committed write');
      return errorResponse(appError && appError.type !== 'server_error' ? appError : serverError(), requestId, ctx.runtime.clock);
    },
  });
}
