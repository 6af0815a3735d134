import * as client from 'openid-client';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

// openid-client (the Node.js OAuth 2.0 / OpenID Connect client most servers meet), used as its
// documentation shows for a plain OAuth 2.0 server: RFC 8414 discovery, then the client
// credentials grant and revocation.

const { server, tenant } = useServer({ tenant: { scopes: ['oauth:revoke', 'messages:read'] } });

const configure = (secret: string, auth: (secret: string) => client.ClientAuth) =>
  client.discovery(new URL(server.url), tenant.clientId, undefined, auth(secret), {
    algorithm: 'oauth2',
    // The test server speaks plain HTTP on loopback.
    execute: [client.allowInsecureRequests],
  });

describe('openid-client against the service', () => {
  it.each([
    ['client_secret_basic', client.ClientSecretBasic],
    ['client_secret_post', client.ClientSecretPost],
  ])('clientCredentialsGrant with %s, the token on a REST path, then tokenRevocation', async (_name, auth) => {
    const config = await configure(tenant.clientSecret, auth);
    expect(config.serverMetadata().token_endpoint).toBe(`${server.url}/oauth/token`);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'messages:read' });
    expect(tokens.scope).toBe('messages:read');
    expect(tokens.expiresIn()).toBeGreaterThan(3500);
    const res = await client.fetchProtectedResource(config, tokens.access_token, new URL(`${server.url}/api/v1/analytics/${tenant.appId}/messages`), 'GET');
    expect(res.status).toBe(200);
    await client.tokenRevocation(config, tokens.access_token);
    const after = await fetch(`${server.url}/api/v1/analytics/${tenant.appId}/messages`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(after.status).toBe(401);
  });

  it('a wrong secret is rejected with the invalid_client error', async () => {
    const config = await configure('wrong', client.ClientSecretPost);
    const error = await client.clientCredentialsGrant(config).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect((error as client.ResponseBodyError).error).toBe('invalid_client');
  });
});
