import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

// A standard OAuth 2.0 client library (oauth4webapi), used as its documentation shows, against the
// service: discovery (RFC 8414), the client credentials grant with both client authentication
// methods, the token on REST and GraphQL, revocation (RFC 7009), and its error types for refusals.

const { server, tenant } = useServer({ tenant: { scopes: ['oauth:revoke', 'messages:read', 'analytics:read'] } });

// The test server speaks plain HTTP on loopback.
const insecure = { [oauth.allowInsecureRequests]: true };

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(server.url);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
}

const clientOf = (clientId: string): oauth.Client => ({ client_id: clientId });

async function grant(as: oauth.AuthorizationServer, auth: oauth.ClientAuth, clientId: string, parameters: Record<string, string> = {}) {
  const response = await oauth.clientCredentialsGrantRequest(as, clientOf(clientId), auth, parameters, insecure);
  return oauth.processClientCredentialsResponse(as, clientOf(clientId), response);
}

/** The rejection of a promise, for asserting on its type. */
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

describe('oauth4webapi against the service', () => {
  it('discovers the server from /.well-known/oauth-authorization-server', async () => {
    const as = await discover();
    expect(as.issuer).toBe(server.url);
    expect(as.token_endpoint).toBe(`${server.url}/oauth/token`);
    expect(as.revocation_endpoint).toBe(`${server.url}/oauth/revoke`);
    expect(as.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
  });

  it.each([
    ['client_secret_basic', (secret: string) => oauth.ClientSecretBasic(secret)],
    ['client_secret_post', (secret: string) => oauth.ClientSecretPost(secret)],
  ])('client credentials with %s; the token works on a REST path and on /graphql', async (_method, auth) => {
    const as = await discover();
    const result = await grant(as, auth(tenant.clientSecret), tenant.clientId, { scope: 'messages:read' });
    expect(result.token_type).toBe('bearer'); // oauth4webapi lower-cases it
    expect(result.scope).toBe('messages:read');
    expect(result.expires_in).toBe(3600);

    const rest = await oauth.protectedResourceRequest(result.access_token, 'GET', new URL(`${server.url}/api/v1/analytics/${tenant.appId}/messages`), undefined, undefined, insecure);
    expect(rest.status).toBe(200);
    expect((await rest.json()).data).toEqual(expect.any(Array));

    const graph = await oauth.protectedResourceRequest(
      result.access_token,
      'POST',
      new URL(`${server.url}/graphql`),
      new Headers({ 'content-type': 'application/json' }),
      JSON.stringify({ query: '{ viewer { clientId scopes } }' }),
      insecure,
    );
    expect(graph.status).toBe(200);
    expect((await graph.json()).data.viewer).toEqual({ clientId: tenant.clientId, scopes: ['messages:read'] });
  });

  it('invalid_client surfaces as a ResponseBodyError (post) and a Basic challenge (basic)', async () => {
    const as = await discover();
    const post = await rejection(grant(as, oauth.ClientSecretPost('wrong'), tenant.clientId));
    expect(post).toBeInstanceOf(oauth.ResponseBodyError);
    expect((post as oauth.ResponseBodyError).error).toBe('invalid_client');
    expect((post as oauth.ResponseBodyError).status).toBe(401);
    const basic = await rejection(grant(as, oauth.ClientSecretBasic('wrong'), tenant.clientId));
    expect(basic).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const [challenge] = (basic as oauth.WWWAuthenticateChallengeError).cause;
    expect(challenge).toMatchObject({ scheme: 'basic', parameters: { realm: 'switchboard' } });
    expect((basic as oauth.WWWAuthenticateChallengeError).status).toBe(401);
  });

  it('invalid_scope surfaces as a ResponseBodyError', async () => {
    const as = await discover();
    const error = await rejection(grant(as, oauth.ClientSecretBasic(tenant.clientSecret), tenant.clientId, { scope: 'scheduling:write' }));
    expect(error).toBeInstanceOf(oauth.ResponseBodyError);
    expect((error as oauth.ResponseBodyError).error).toBe('invalid_scope');
    expect((error as oauth.ResponseBodyError).status).toBe(400);
  });

  it('revokes with revocationRequest; the revoked token then meets an invalid_token challenge', async () => {
    const as = await discover();
    const { access_token } = await grant(as, oauth.ClientSecretPost(tenant.clientSecret), tenant.clientId);
    const revoked = await oauth.revocationRequest(as, clientOf(tenant.clientId), oauth.ClientSecretBasic(tenant.clientSecret), access_token, insecure);
    await expect(oauth.processRevocationResponse(revoked)).resolves.toBeUndefined();
    const error = await rejection(oauth.protectedResourceRequest(access_token, 'GET', new URL(`${server.url}/api/v1/analytics/${tenant.appId}/messages`), undefined, undefined, insecure));
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((error as oauth.WWWAuthenticateChallengeError).cause[0]).toMatchObject({
      scheme: 'bearer',
      parameters: { realm: 'switchboard', error: 'invalid_token', error_description: 'Token revoked' },
    });
  });
});
