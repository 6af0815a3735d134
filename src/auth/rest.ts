import { z } from 'zod';
import { defineRoute, withMeta } from '../rest/adapter.js';

/** RFC 7009 names two kinds; a hint changes nothing here (there is one kind of token), but is bounded. */
export const TOKEN_TYPE_HINT_MAX_LENGTH = 64;

/** POST /oauth/revoke (RFC 7009), through the schema like every other v1 path but the token endpoint. */
export const revokeRoute = defineRoute<{ revokeToken: boolean }>({
  method: 'POST',
  path: '/oauth/revoke',
  document: 'mutation RestRevokeToken($token: String!) { revokeToken(token: $token) }',
  body: 'spread',
  // RFC 7009 lets a client say which kind of token it revokes; there is one kind here.
  ignoredBodyKeys: { token_type_hint: z.string().max(TOKEN_TYPE_HINT_MAX_LENGTH).nullish() },
  formBody: true,
  invalidJson: 'invalid_request',
  respond: () => ({ body: withMeta({}) }),
});
