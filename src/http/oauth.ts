import type { IncomingMessage } from 'node:http';
import type { Context, Hono } from 'hono';
import { authenticateClient, issueToken, revokeTokenOf } from '../auth/access-tokens.js';
import { TOKEN_TYPE_HINT_MAX_LENGTH } from '../auth/rest.js';
import { scopes } from '../auth/scopes.js';
import { oauthErrorBody } from '../errors/envelope.js';
import { toAppError } from '../graphql/errors.js';
import { gatewayRoutes } from '../rest/routes.js';
import { parseBasic, sourceAddress, TOKEN_BODY_MAX_BYTES } from '../rest/token-route.js';
import type { Runtime } from '../runtime.js';
import type { HttpEnv } from '../web/hono-env.js';
import { lingerOnClose } from '../web/lingering-close.js';
import { readTextUpTo } from '../web/read-body.js';

// OAuth 2.0 as standard clients speak it, at the root of the main listener: the token endpoint
// (RFC 6749 section 5 answers), revocation (RFC 7009) and the metadata that points at them
// (RFC 8414). The client checks, failure budgets and token issuance are the ones behind
// /api/v1/oauth/token; only the wire format differs.

export const OAUTH_TOKEN_PATH = gatewayRoutes.oauthToken.path;
export const OAUTH_REVOKE_PATH = gatewayRoutes.oauthRevoke.path;
export const OAUTH_METADATA_PATH = gatewayRoutes.oauthMetadata.path;
export const BASIC_CHALLENGE = 'Basic realm="switchboard"';
const AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/** An RFC 6749 5.2 error: `error` is the protocol's code, `status` its HTTP status. */
class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The base the metadata's URLs are built on: PUBLIC_URL, else the origin the request came to. */
const baseUrl = (c: Context<HttpEnv>, runtime: Runtime) => (runtime.config.PUBLIC_URL ?? new URL(c.req.url).origin).replace(/\/$/, '');

export function authorizationServerMetadata(base: string) {
  return {
    issuer: base,
    token_endpoint: `${base}${OAUTH_TOKEN_PATH}`,
    revocation_endpoint: `${base}${OAUTH_REVOKE_PATH}`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    grant_types_supported: ['client_credentials'],
    // No authorization endpoint: no response type is supported.
    response_types_supported: [],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    scopes_supported: [...scopes],
    service_documentation: `${base}/docs`,
  };
}

/**
 * The form body, at most TOKEN_BODY_MAX_BYTES, each parameter once (RFC 6749 3.2: a parameter
 * sent twice is invalid_request). A larger body is refused as it is announced or as it streams in,
 * without reading the rest.
 */
async function readForm(c: Context<HttpEnv>): Promise<Map<string, string>> {
  const type = (c.req.header('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const tooLarge = () => {
    // Read and dropped for a while after the answer, so the uploading client gets it rather than a reset.
    lingerOnClose(incoming);
    return new OAuthError('invalid_request', 413, `The request body is at most ${TOKEN_BODY_MAX_BYTES} bytes`, { Connection: 'close' });
  };
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 400, 'The body must be application/x-www-form-urlencoded');
  }
  const length = c.req.header('content-length');
  if (length !== undefined && /^\s*\d+\s*$/.test(length) && Number(length) > TOKEN_BODY_MAX_BYTES) throw tooLarge();
  const body = await readTextUpTo(c, TOKEN_BODY_MAX_BYTES);
  if (body === undefined) throw tooLarge();
  const fields = new Map<string, string>();
  for (const [key, value] of new URLSearchParams(body)) {
    if (fields.has(key)) throw new OAuthError('invalid_request', 400, `${key} is given more than once`);
    // RFC 6749 3.2: a parameter sent without a value is treated as omitted.
    if (value !== '') fields.set(key, value);
  }
  return fields;
}

/**
 * The client's credentials from Basic (client_secret_basic) or the body (client_secret_post):
 * RFC 6749 2.3 allows one method per request. A client_id in the body beside Basic must name the
 * same client.
 */
function clientCredentials(c: Context<HttpEnv>, fields: Map<string, string>) {
  const authorization = c.req.header('authorization');
  const usesBasic = /^Basic(\s|$)/i.test(authorization ?? '');
  if (!usesBasic) return { clientId: fields.get('client_id'), clientSecret: fields.get('client_secret'), viaBasic: false };
  const basic = parseBasic(authorization);
  if (!basic) throw new OAuthError('invalid_client', 401, 'Malformed Basic credentials', { 'WWW-Authenticate': BASIC_CHALLENGE });
  if (fields.has('client_secret')) throw new OAuthError('invalid_request', 400, 'Use one client authentication method: Basic or client_secret in the body');
  if (fields.has('client_id') && fields.get('client_id') !== basic.clientId) throw new OAuthError('invalid_request', 400, 'client_id differs from the Basic credentials');
  return { ...basic, viaBasic: true };
}

/** A service error as RFC 6749 5.2 states it. */
function toOAuthError(error: unknown, runtime: Runtime, c: Context<HttpEnv>, viaBasic: boolean): OAuthError {
  if (error instanceof OAuthError) return error;
  const appError = toAppError(error);
  const basic = viaBasic ? { 'WWW-Authenticate': BASIC_CHALLENGE } : undefined;
  switch (appError?.type) {
    case 'unsupported_grant_type':
      return new OAuthError('unsupported_grant_type', 400, appError.message);
    case 'invalid_client':
      // Missing, malformed or wrong credentials alike: client authentication failed (RFC 6749 5.2).
      return new OAuthError('invalid_client', 401, appError.message, basic);
    case 'invalid_request': {
      const narrowing = appError.details?.some((d) => d.field === 'scope' || d.field === 'app_id');
      return new OAuthError(narrowing ? 'invalid_scope' : 'invalid_request', 400, appError.message);
    }
    case 'rate_limit_exceeded':
      return new OAuthError('temporarily_unavailable', 429, appError.message, appError.headers);
    case 'service_unavailable':
      return new OAuthError('temporarily_unavailable', 503, appError.message, appError.headers);
    default:
      runtime.logger.error({ err: error, requestId: c.get('requestId') }, 'unhandled error on the OAuth endpoints');
      return new OAuthError('server_error', 500, 'Internal error');
  }
}

const answer = (c: Context<HttpEnv>, body: unknown, status: number, headers: Record<string, string> = {}) =>
  c.json(body, status as 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers });

const errorAnswer = (c: Context<HttpEnv>, error: OAuthError) =>
  answer(c, oauthErrorBody(error.error, error.message), error.status, error.headers);

/** Methods other than POST: 405 with Allow, in the endpoint's own error format. */
const postOnly = (c: Context<HttpEnv>) => errorAnswer(c, new OAuthError('invalid_request', 405, 'Use POST', { Allow: 'POST' }));

export function mountStandardOAuth(app: Hono<HttpEnv>, runtime: Runtime): void {
  app.get(OAUTH_METADATA_PATH, (c) => c.json(authorizationServerMetadata(baseUrl(c, runtime)), 200, { 'Cache-Control': 'no-cache' }));
  app.all(OAUTH_METADATA_PATH, (c) => c.json(oauthErrorBody('invalid_request', 'Use GET'), 405, { Allow: 'GET' }));

  app.post(OAUTH_TOKEN_PATH, async (c) => {
    let viaBasic = false;
    try {
      const fields = await readForm(c);
      const client = clientCredentials(c, fields);
      viaBasic = client.viaBasic;
      const token = await issueToken(runtime, {
        ...client,
        grantType: fields.get('grant_type'),
        sourceAddress: sourceAddress(c, runtime.config.TRUSTED_PROXIES),
        scope: fields.get('scope'),
        appIds: fields.get('app_id'),
      });
      return answer(c, token, 200);
    } catch (error) {
      return errorAnswer(c, toOAuthError(error, runtime, c, viaBasic));
    }
  });
  app.all(OAUTH_TOKEN_PATH, postOnly);

  app.post(OAUTH_REVOKE_PATH, async (c) => {
    let viaBasic = false;
    try {
      const fields = await readForm(c);
      const credentials = clientCredentials(c, fields);
      viaBasic = credentials.viaBasic;
      // The client is authenticated before the request is judged (RFC 7009 2.1), so a stranger learns nothing from it.
      const client = await authenticateClient(runtime, { ...credentials, sourceAddress: sourceAddress(c, runtime.config.TRUSTED_PROXIES) });
      const token = fields.get('token');
      if (token === undefined) throw new OAuthError('invalid_request', 400, 'Missing token');
      const hint = fields.get('token_type_hint');
      if (hint !== undefined && hint.length > TOKEN_TYPE_HINT_MAX_LENGTH) throw new OAuthError('invalid_request', 400, 'token_type_hint too long');
      // The same rule as /api/v1/oauth/revoke: revoking takes the oauth:revoke scope.
      if (!client.scopes.includes('oauth:revoke')) throw new OAuthError('unauthorized_client', 400, 'This client lacks the oauth:revoke scope');
      await revokeTokenOf(runtime, client.clientId, token);
      // RFC 7009 2.2: 200 whether or not the token was valid; the body is not read.
      return c.body(null, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    } catch (error) {
      return errorAnswer(c, toOAuthError(error, runtime, c, viaBasic));
    }
  });
  app.all(OAUTH_REVOKE_PATH, postOnly);
}
