import { defineRoute, withMeta } from '../rest/adapter.js';

/** POST /oauth/revoke (RFC 7009), through the schema like every other v1 path but the token endpoint. */
export const revokeRoute = defineRoute<{ revokeToken: boolean }>({
  method: 'POST',
  path: '/oauth/revoke',
  document: 'mutation RestRevokeToken($token: String!) { revokeToken(token: $token) }',
  body: 'spread',
  // RFC 7009 lets a client say which kind of token it revokes; there is one kind here.
  ignoredBodyKeys: ['token_type_hint'],
  formBody: true,
  invalidJson: 'invalid_request',
  respond: () => ({ body: withMeta({}) }),
});
