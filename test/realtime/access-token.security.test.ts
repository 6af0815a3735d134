import { decodeJwt, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../src/auth/tokens.js';
import { useServer } from '../helpers/use-server.js';
import { agent, api, everyDay, importRecords } from '../scheduling/fixtures.js';
import { openStream } from './event-stream.fixtures.js';
import { APP_EVENTS, booker, seedAgents, settle, TIMELINE } from './timeline.fixtures.js';

// The access_token query parameter (what a browser's EventSource can send) on GET /graphql/stream:
// the same tenancy, scope and token checks as the Authorization header, and nowhere else.
const { server, tenant } = useServer({ tenant: true });
beforeAll(() => seedAgents(server, tenant.appId));
const book = booker(server);

const streamUrl = (params: Record<string, string>, tokens: string[] = []) => {
  const url = new URL(`${server.url}/graphql/stream`);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  for (const token of tokens) url.searchParams.append('access_token', token);
  return url;
};
const refusal = async (res: Response) => (await res.json()) as { errors: { message: string; extensions: { code: string; details?: { field: string }[] } }[] };

describe('tenancy and scopes with the token in the URL', () => {
  it.each([
    ['another app\'s token on this app\'s call', 'stranger', 'forbidden', 9],
    ['a token of this app without scheduling:read', 'writer', 'forbidden', 11],
    ['a token narrowed to another app of its own client', 'narrowed', 'forbidden', 13],
  ] as const)('%s: a forbidden error result, no events', async (_name, who, code, hour) => {
    const id = await book(tenant, 7, hour);
    const stranger = await server.tenant();
    const writer = await (await server.client({ apps: [tenant.appId], scopes: ['scheduling:write'] })).token();
    // One client with both apps, its token narrowed to the other one.
    const both = await server.client({ apps: [tenant.appId, stranger.appId], scopes: ['scheduling:read'] });
    const narrowed = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: both.clientId, client_secret: both.clientSecret, app_id: stranger.appId }),
    });
    const tokens = { stranger: stranger.accessToken, writer, narrowed: ((await narrowed.json()) as { access_token: string }).access_token };
    const stream = await openStream(server, undefined, TIMELINE, { app: tenant.appId, id }, { accessToken: tokens[who] });
    expect(stream.status).toBe(200);
    await stream.until(1);
    await api(server, tenant).patch(id, { guestName: 'Unseen' });
    await Promise.race([stream.done, settle()]);
    const nexts = stream.nexts();
    expect(nexts).toHaveLength(1);
    expect(nexts[0]!.data!.errors?.[0]?.extensions?.code).toBe(code);
    expect(nexts[0]!.data!.data ?? null).toBeNull();
    stream.close();
  });

  it('the app-wide stream of one app carries nothing of another app\'s calls', async () => {
    const other = await server.tenant();
    await importRecords(server, other.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const mine = await openStream(server, undefined, APP_EVENTS, { app: tenant.appId }, { accessToken: tenant.accessToken });
    await settle();
    await book(other, 8, 10);
    const own = await book(tenant, 8, 12);
    await mine.until(1);
    await settle();
    expect(mine.nexts().map((f) => (f.data!.data!.scheduledCallEvents as unknown as { callId: string }).callId)).toEqual([own]);
    mine.close();
  });
});

describe('refused before any stream', () => {
  const variables = () => ({ app: tenant.appId, id: '00000000-0000-4000-8000-000000000000' });

  it.each([
    ['expired', 'Token expired'],
    ['revoked', 'Token revoked'],
    ['not a token', 'Invalid token'],
    ['not a b64token (a space in it)', 'Invalid token'],
  ] as const)('%s: 401 invalid_token, as with the header', async (kind, message) => {
    let token: string;
    if (kind === 'expired') {
      const now = Math.floor(Date.now() / 1000);
      token = await new SignJWT({ ...decodeJwt(tenant.accessToken), iat: now - 7200, exp: now - 3600 })
        .setProtectedHeader({ alg: 'ES256', kid: server.runtime.keys.kid })
        .sign(server.runtime.keys.privateKey);
    } else if (kind === 'revoked') {
      token = await tenant.token();
      const revoked = await fetch(`${server.url}/api/v1/oauth/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      expect(revoked.status).toBe(200);
    } else token = kind === 'not a token' ? 'not.a.jwt' : `${tenant.accessToken} x`;
    const res = await fetch(streamUrl({ query: TIMELINE, variables: JSON.stringify(variables()) }, [token]), { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="switchboard", error="invalid_token", error_description="${message}"`);
    expect((await refusal(res)).errors[0]!.extensions.code).toBe('unauthorized');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('the header and the parameter together: 400 invalid_request (RFC 6750 allows one way a request), even when both are valid', async () => {
    const res = await fetch(streamUrl({ query: TIMELINE, variables: JSON.stringify(variables()) }, [tenant.accessToken]), {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${tenant.accessToken}` },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="switchboard", error="invalid_request", error_description="Send the token one way/);
    const body = await refusal(res);
    expect(body.errors[0]!.extensions.code).toBe('invalid_request');
    expect(body.errors[0]!.extensions.details?.map((d) => d.field)).toEqual(['access_token']);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('the parameter twice: 400 invalid_request', async () => {
    const res = await fetch(streamUrl({ query: TIMELINE, variables: JSON.stringify(variables()) }, [tenant.accessToken, tenant.accessToken]), { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(400);
    expect((await refusal(res)).errors[0]!.extensions.details?.map((d) => d.field)).toEqual(['access_token']);
  });

  it('an empty parameter counts as none: the header alone is used, and without it the answer is 401', async () => {
    const url = streamUrl({ query: TIMELINE, variables: JSON.stringify(variables()) }, ['']);
    const withHeader = await openStream(server, tenant.accessToken, TIMELINE, variables(), { accessToken: '' });
    expect(withHeader.status).toBe(200);
    withHeader.close();
    const alone = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(alone.status).toBe(401);
    expect(alone.headers.get('www-authenticate')).toBe('Bearer realm="switchboard"');
  });
});

describe('the parameter is read on GET /graphql/stream only', () => {
  it.each([
    ['POST /graphql/stream', () => fetch(streamUrl({}, [tenant.accessToken]), {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: TIMELINE, variables: { app: tenant.appId, id: '00000000-0000-4000-8000-000000000000' } }),
    })],
    ['GET /graphql', () => fetch(`${server.url}/graphql?${new URLSearchParams({ query: '{ viewer { clientId } }', access_token: tenant.accessToken })}`, { headers: { accept: 'application/json' } })],
    ['POST /graphql', () => fetch(`${server.url}/graphql?access_token=${tenant.accessToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { clientId } }' }),
    })],
    ['a REST path', () => fetch(`${server.url}/api/v1/analytics/${tenant.appId}/tags?access_token=${tenant.accessToken}`)],
  ])('%s ignores it: 401 without the header', async (_name, send) => {
    const res = await send();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="switchboard"');
  });
});

describe('a stream opened with the parameter holds its token as a request does', () => {
  const revoke = (bearer: string, token: string) =>
    fetch(`${server.url}/api/v1/oauth/revoke`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ token }) });

  it('revoked: no further event, and the stream completes', async () => {
    const watcher = await server.tenant();
    await importRecords(server, watcher.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const streamToken = await watcher.token();
    const stream = await openStream(server, undefined, APP_EVENTS, { app: watcher.appId }, { accessToken: streamToken });
    expect(stream.status).toBe(200);
    await settle();
    await book(watcher, 5, 10);
    await stream.until(1);
    expect((await revoke(watcher.accessToken, streamToken)).status).toBe(200);
    await book(watcher, 5, 12);
    await Promise.race([stream.done, new Promise((r) => setTimeout(r, 5000))]);
    expect(stream.frames.map((f) => f.event)).toEqual(['next', 'complete']);
  });

  it('expired: the stream completes at the expiry', { timeout: 30_000 }, async () => {
    const watcher = await server.tenant();
    await importRecords(server, watcher.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    // Long enough for the first event to arrive on a loaded machine; the service issues at least 60 s.
    const { token } = await signAccessToken(server.runtime.keys, { ...server.runtime.tokens, ttlSeconds: 6 }, {
      clientId: watcher.clientId,
      scopes: ['scheduling:read'],
      apps: [watcher.appId],
    });
    const stream = await openStream(server, undefined, APP_EVENTS, { app: watcher.appId }, { accessToken: token });
    expect(stream.status).toBe(200);
    await settle();
    await book(watcher, 6, 10);
    await stream.until(1);
    await Promise.race([stream.done, new Promise((r) => setTimeout(r, 10_000))]);
    await book(watcher, 6, 12);
    await settle();
    expect(stream.frames.map((f) => f.event)).toEqual(['next', 'complete']);
  });
});
