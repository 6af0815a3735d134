import { beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/time/clock.js';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agent, api, everyDay, importRecords } from '../scheduling/fixtures.js';
import { flowBody, inbound, newPhone, send } from '../sends/fixtures.js';

// A test server given a fixed clock: every service reads "now" from it. The instant is years
// before the real one, so an answer computed from the system clock instead would differ.
const FIXED = '2021-03-04T05:06:07.890Z';
const clock = fixedClock(FIXED);

const { server, tenant } = useServer({ clock, tenant: true });
beforeEach(() => clock.set(FIXED));

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { iat: number; exp: number };

describe('the REST envelope', () => {
  it('meta.timestamp of a response is the clock time, and follows it when it moves', async () => {
    const first = await request(`${server.url}/api/v1/analytics/${tenant.appId}/tags`, { token: tenant.accessToken });
    expect(first.status).toBe(200);
    expect(first.body.meta.timestamp).toBe(FIXED);
    clock.advance(60_000);
    const later = await request(`${server.url}/api/v1/analytics/${tenant.appId}/tags`, { token: tenant.accessToken });
    expect(later.body.meta.timestamp).toBe('2021-03-04T05:07:07.890Z');
  });

  it('error.timestamp is the clock time, before and after authentication', async () => {
    const unauthenticated = await request(`${server.url}/api/v1/analytics/${tenant.appId}/tags`);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body.error.timestamp).toBe(FIXED);
    const missing = await request(`${server.url}/api/v1/analytics/${tenant.appId}/templates/00000000-0000-4000-8000-000000000000`, { token: tenant.accessToken });
    expect(missing.status).toBe(404);
    expect(missing.body.error.timestamp).toBe(FIXED);
  });

  it('the token endpoint stamps its envelope with the clock too', async () => {
    const res = await request(`${server.url}/api/v1/oauth/token`, {
      json: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret },
    });
    expect(res.status).toBe(200);
    expect(res.body.meta.timestamp).toBe(FIXED);
  });
});

describe('access tokens', () => {
  it('iat is the clock time and exp is TOKEN_TTL_SECONDS after it', async () => {
    const { iat, exp } = claimsOf(await tenant.token());
    expect(iat).toBe(Math.floor(Date.parse(FIXED) / 1000));
    expect(exp).toBe(iat + server.runtime.config.TOKEN_TTL_SECONDS);
  });

  it('expiry is judged on the clock: a token valid at the clock time is accepted, and refused once the clock passes exp', async () => {
    const token = await tenant.token();
    // Its exp is years in the real past: only a verification on the clock accepts it.
    const ok = await request(`${server.url}/api/v1/analytics/${tenant.appId}/tags`, { token });
    expect(ok.status).toBe(200);
    clock.advance((server.runtime.config.TOKEN_TTL_SECONDS + 1) * 1000);
    const expired = await request(`${server.url}/api/v1/analytics/${tenant.appId}/tags`, { token });
    expect(expired.status).toBe(401);
  });
});

describe('scheduling', () => {
  it('"in the future" means after the clock time, and created_at is the clock time', async () => {
    const other = await server.tenant();
    await importRecords(server, other.appId, [agent(1, 'UTC', everyDay('00:00', '24:00'))]);
    const a = api(server, other);
    const booking = (at: string) => ({ scheduledAtUtc: at, durationMinutes: 30, guestName: 'Ann Lee' });

    // An hour before the clock (and years before the real time): refused.
    const past = await a.create(booking('2021-03-04T04:00:00.000Z'));
    expect(past.status).toBe(400);
    expect(JSON.stringify(past.body.error.details)).toContain('must be in the future');

    // An hour after the clock, though long past in real time: booked.
    const future = await a.create(booking('2021-03-04T06:00:00.000Z'));
    expect(future.status).toBe(201);
    expect(future.body.data.call.created_at).toBe(FIXED);
  });
});

describe('metrics', () => {
  it('the default window is the 30 days up to the clock time', async () => {
    const daily = await request(`${server.url}/api/v1/analytics/${tenant.appId}/metrics/daily`, { token: tenant.accessToken });
    expect(daily.status).toBe(200);
    const dates = (daily.body.data as { date: string }[]).map((d) => d.date);
    expect(dates.at(-1)).toBe('2021-03-04');
    expect(dates[0]).toBe('2021-02-02');
  });
});

describe('sends', () => {
  it('an inbound message without a timestamp is received at the clock time, and the 24-hour window runs on the clock', async () => {
    const phone = newPhone();
    const received = await inbound(server, tenant, { type: 'message', id: `wamid.clock.${phone}`, from: phone, to: '447700900000', text: 'hi' });
    expect(received.status).toBe(200);
    expect(received.body.data.message.created_at).toBe(FIXED);
    // The window opened at the clock time (years ago in real time) is open 23 hours later...
    clock.advance(23 * 3_600_000);
    // A token issued now: the one of beforeAll expired on the clock.
    const caller = { appId: tenant.appId, accessToken: await tenant.token() };
    const sent = await send(server, caller, flowBody(phone));
    expect(sent.status).toBe(202);
    expect(sent.body.data.message.created_at).toBe('2021-03-05T04:06:07.890Z');
    // ...and closed 2 hours after that.
    clock.advance(2 * 3_600_000);
    const closed = await send(server, { ...caller, accessToken: await tenant.token() }, flowBody(phone));
    expect(closed.status).toBe(422);
    expect(closed.body.error.type).toBe('outside_service_window');
  });
});
