import { scopes } from '../auth/scopes.js';
import { APP_IDS_MAX, SCOPE_MAX_LENGTH } from '../auth/access-tokens.js';
import { TOKEN_TYPE_HINT_MAX_LENGTH } from '../auth/rest.js';
import { CLIENT_ID_MAX_LENGTH, CLIENT_SECRET_MAX_LENGTH } from '../auth/secrets.js';
import type { JsonSchema } from './graphql-schema.js';

// The standard OAuth 2.0 endpoints at the root of the main listener (src/http/oauth.ts). The
// document's paths are relative to /api/v1, where /oauth/token is already the v1 endpoint, so
// these path items carry their own server: /oauth (token, revoke) and /.well-known (metadata).

/** Swagger UI's Authorize posts here (client credentials, RFC 6749 answers); relative to the API's origin. */
export const STANDARD_TOKEN_URL = '/oauth/token';

const credentialFields: Record<string, JsonSchema> = {
  client_id: { type: 'string', minLength: 1, maxLength: CLIENT_ID_MAX_LENGTH, description: 'client_secret_post; left out with HTTP Basic (client_secret_basic).' },
  client_secret: { type: 'string', minLength: 1, maxLength: CLIENT_SECRET_MAX_LENGTH, description: 'client_secret_post; left out with HTTP Basic.' },
};

const oauthError = (codes: string[], description: string, headers: Record<string, unknown> = {}) => ({
  description: `${description}: ${codes.map((c) => `\`${c}\``).join(', ')}`,
  headers,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        description: 'RFC 6749 5.2 error body.',
        properties: { error: { type: 'string', enum: codes }, error_description: { type: 'string' } },
        required: ['error'],
      },
    },
  },
});

/** A required `application/x-www-form-urlencoded` body, as both standard endpoints take. */
const formBody = (properties: Record<string, JsonSchema>, required: string[]) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties, required } } },
});

const noStore = { 'Cache-Control': { schema: { type: 'string', const: 'no-store' } } };
const retryAfter = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
const basicChallenge = { 'WWW-Authenticate': { description: '`Basic realm="switchboard"` when the client used HTTP Basic.', schema: { type: 'string' } } };

const commonErrors = {
  '401': oauthError(['invalid_client'], 'Client authentication failed (missing, malformed, unknown or wrong credentials)', basicChallenge),
  '405': oauthError(['invalid_request'], 'Only POST'),
  '413': oauthError(['invalid_request'], 'Body over 16 KiB'),
  '429': oauthError(['temporarily_unavailable'], 'Too many failed client authentications from this address, or (token requests) too many tokens issued to this client in the last minute', retryAfter),
  '500': oauthError(['server_error'], 'Internal failure'),
  '503': oauthError(['temporarily_unavailable'], 'The database is unavailable', retryAfter),
};

const narrowingFields: Record<string, JsonSchema> = {
  scope: { type: 'string', maxLength: SCOPE_MAX_LENGTH, description: `Space-separated subset of the client's scopes (${scopes.join(', ')}); all of them when left out.` },
  app_id: { type: 'string', description: `Space-separated subset of the client's app ids (at most ${APP_IDS_MAX}); all of them when left out.` },
};

function tokenOperation(): Record<string, unknown> {
  return {
    operationId: 'oauthToken',
    summary: 'Issue an access token (RFC 6749)',
    description:
      'The standard token endpoint: client credentials grant with a form body, client authentication by HTTP Basic (`client_secret_basic`) or in the body (`client_secret_post`), answers and errors as RFC 6749 section 5 states them. The same tokens as `POST /api/v1/oauth/token`. `scope` and `app_id` narrow the token to some of the client\'s scopes and apps.',
    tags: ['oauth'],
    security: [{}, { clientBasic: [] }],
    requestBody: formBody({ grant_type: { const: 'client_credentials' }, ...credentialFields, ...narrowingFields }, ['grant_type']),
    responses: {
      '200': {
        description: 'A new access token.',
        headers: noStore,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                access_token: { type: 'string', description: 'Bearer token (a JWT, RFC 9068 claims).' },
                token_type: { const: 'Bearer' },
                expires_in: { type: 'integer', description: 'Lifetime in seconds.' },
                scope: { type: 'string', description: 'The granted scopes, space-separated.' },
              },
              required: ['access_token', 'token_type', 'expires_in', 'scope'],
            },
          },
        },
      },
      '400': oauthError(['invalid_request', 'invalid_scope', 'unsupported_grant_type'], 'Bad request'),
      ...commonErrors,
    },
  };
}

function revokeOperation(): Record<string, unknown> {
  return {
    operationId: 'oauthRevoke',
    summary: 'Revoke an access token (RFC 7009)',
    description:
      'The standard revocation endpoint: the client authenticates as at the token endpoint and needs the `oauth:revoke` scope. 200 with an empty body whether or not the token was valid; only the client\'s own tokens are revoked.',
    tags: ['oauth'],
    security: [{}, { clientBasic: [] }],
    requestBody: formBody(
      {
        token: { type: 'string', description: 'The access token to revoke.' },
        token_type_hint: { type: 'string', maxLength: TOKEN_TYPE_HINT_MAX_LENGTH, description: 'Ignored: there is one kind of token.' },
        ...credentialFields,
      },
      ['token'],
    ),
    responses: {
      '200': { description: 'Revoked, or nothing to revoke. Empty body.', headers: noStore },
      '400': oauthError(['invalid_request', 'unauthorized_client'], 'Bad request, or a client without oauth:revoke'),
      ...commonErrors,
    },
  };
}

function metadataOperation(): Record<string, unknown> {
  const urls = ['issuer', 'token_endpoint', 'revocation_endpoint', 'jwks_uri', 'service_documentation'];
  const lists = ['grant_types_supported', 'response_types_supported', 'token_endpoint_auth_methods_supported', 'revocation_endpoint_auth_methods_supported', 'scopes_supported'];
  return {
    operationId: 'oauthMetadata',
    summary: 'Authorization server metadata (RFC 8414)',
    description: 'Where the token, revocation and key endpoints are, and what they support. URLs are built on PUBLIC_URL when it is set.',
    tags: ['oauth'],
    security: [{}],
    responses: {
      '200': {
        description: 'The metadata document.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                ...Object.fromEntries(urls.map((u) => [u, { type: 'string', format: 'uri' }])),
                ...Object.fromEntries(lists.map((l) => [l, { type: 'array', items: { type: 'string' } }])),
              },
              required: ['issuer', 'token_endpoint', 'grant_types_supported', 'token_endpoint_auth_methods_supported', 'scopes_supported'],
            },
          },
        },
      },
    },
  };
}

/**
 * Adds the root endpoints to `paths` and the form body /api/v1/oauth/revoke also takes.
 * `publicUrl` as the document's (absolute origin, else relative).
 */
export function addStandardOAuth(paths: Record<string, Record<string, unknown>>, publicUrl?: string): void {
  const root = publicUrl?.replace(/\/$/, '') ?? '';
  const server = (prefix: string) => [{ url: `${root}${prefix}`, description: 'Standard OAuth 2.0 endpoints at the root of the main listener' }];
  for (const [path, method, operation, prefix] of [
    ['/token', 'post', tokenOperation(), '/oauth'],
    ['/revoke', 'post', revokeOperation(), '/oauth'],
    ['/oauth-authorization-server', 'get', metadataOperation(), '/.well-known'],
  ] as const) {
    if (paths[path]) throw new Error(`OpenAPI: ${path} is already a path of the document`);
    paths[path] = { servers: server(prefix), [method]: operation };
  }
  // The v1 token endpoint takes the same narrowing parameters, in JSON or a form.
  const v1Token = (paths['/oauth/token']?.post as { requestBody?: { content: Record<string, { schema?: JsonSchema }> } } | undefined)?.requestBody;
  for (const media of Object.values(v1Token?.content ?? {})) {
    const properties = media.schema?.properties as Record<string, JsonSchema> | undefined;
    if (properties) Object.assign(properties, narrowingFields);
  }
  const revoke = (paths['/oauth/revoke']?.post as { requestBody?: { content: Record<string, unknown> } } | undefined)?.requestBody;
  if (revoke?.content['application/json']) revoke.content['application/x-www-form-urlencoded'] = revoke.content['application/json'];
}
