import type { Scenario } from '../types.js';
import { postJson } from './common.js';

/** Client credentials grant: one HMAC secret check and an ES256 signature a request; no floor (no SQL read to compare). */
export const tokenIssue: Scenario = {
  name: 'token_issue',
  title: 'Token issue, client credentials (POST /api/v1/oauth/token)',
  // A login burst, not 32 clients hammering the grant: a client asks for a token about once an hour.
  connections: 8,
  request: (ctx) =>
    postJson('/api/v1/oauth/token', { grant_type: 'client_credentials', client_id: ctx.dataset.clientId, client_secret: ctx.dataset.clientSecret }, undefined),
};
