import { describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ overrides: { GRAPHQL_MAX_ALIASES: '5' }, tenant: true });

/**
 * extensions.code is the REST error type, with details for validation failures, and nothing
 * executed (no `data`): 200 to an application/json client, 400 to an
 * application/graphql-response+json one (GraphQL over HTTP), with the same errors.
 */
async function refused(query: string, variables: Record<string, unknown> | undefined, code: string, field?: string) {
  const res = await gql(server.url, tenant.accessToken, query, variables);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).not.toHaveProperty('data');
  const extensions = res.body.errors?.[0]?.extensions;
  expect(extensions?.code, JSON.stringify(res.body)).toBe(code);
  if (field !== undefined) expect(extensions?.details?.[0]?.field, JSON.stringify(res.body)).toBe(field);
  const strict = await request(`${server.url}/graphql`, {
    token: tenant.accessToken,
    json: { query, variables },
    headers: { accept: 'application/graphql-response+json' },
  });
  expect(strict.status, JSON.stringify(strict.body)).toBe(400);
  expect(strict.headers.get('content-type')).toContain('application/graphql-response+json');
  expect(strict.body).toEqual(res.body);
  return extensions;
}

describe('errors of the GraphQL document itself', () => {
  it('a variable of the wrong type: the REST type of its root field, with the variable as the field', async () => {
    const query = 'query($app: UUID!, $n: Int) { messages(appId: $app, first: $n) { limit } }';
    for (const [n, code] of [['5', 'invalid_type'], [[5], 'invalid_type'], [1e20, 'too_big'], [-1e20, 'too_small']] as const) {
      const extensions = await refused(query, { app: tenant.appId, n }, 'validation_error', 'n');
      expect(extensions?.details[0].code).toBe(code);
    }
    await refused(query, { n: 5 }, 'validation_error', 'app');
    // Scheduling answers invalid_request on REST, and so on GraphQL.
    await refused('query($app: UUID!, $id: UUID!) { scheduledCall(appId: $app, id: $id) { id: callId } }', { app: tenant.appId, id: 'not-a-uuid' }, 'invalid_request', 'id');
  });

  it('a variable whose input object does not coerce: the whole path, typed by its root field', async () => {
    const query = 'mutation($a: UUID!, $i: CreateScheduledCallInput!) { createScheduledCall(appId: $a, input: $i) { id: callId } }';
    const call = { scheduledAtUtc: '2027-02-03T14:00:00Z', durationMinutes: 30, guestName: 'Ann' };
    for (const [input, field, code] of [
      [{ ...call, scheduledAtUtc: '2027-02-30T14:00:00Z' }, 'i.scheduledAtUtc', 'invalid_value'],
      [{ ...call, guestName: 5 }, 'i.guestName', 'invalid_type'],
      [{ ...call, bogus: 1 }, 'i.bogus', 'unrecognized'],
      [{ durationMinutes: 30, guestName: 'Ann' }, 'i.scheduledAtUtc', 'required'],
    ] as const) {
      const extensions = await refused(query, { a: tenant.appId, i: input }, 'invalid_request', field);
      expect(extensions?.details, JSON.stringify(input)).toEqual([{ field, code, message: expect.any(String) }]);
    }
  });

  it('a literal argument that does not coerce: the argument path', async () => {
    await refused(`{ messages(appId: "not-a-uuid") { limit } }`, undefined, 'validation_error', 'appId');
    await refused(`{ dailyMetrics(appId: "${tenant.appId}", startDate: "1800-01-01T00:00:00Z") { date } }`, undefined, 'validation_error', 'startDate');
    await refused(`{ messages(appId: "${tenant.appId}", first: "x") { limit } }`, undefined, 'validation_error', 'first');
    await refused(`{ scheduledCall(appId: "${tenant.appId}", id: "nope") { id: callId } }`, undefined, 'invalid_request', 'id');
    await refused(`{ scheduledCall(appId: "${tenant.appId}") { id: callId } }`, undefined, 'invalid_request', 'id');
    // Inside an input object: an unknown field, a value of the wrong type, through a list.
    const update = (input: string) => `mutation { updateScheduledCall(appId: "${tenant.appId}", id: "${tenant.appId}", input: ${input}) { id: callId } }`;
    await refused(update('{ nope: 1 }'), undefined, 'invalid_request', 'input.nope');
    await refused(update('{ scheduledAtUtc: "2027-02-30T10:00:00Z" }'), undefined, 'invalid_request', 'input.scheduledAtUtc');
    await refused(`{ campaigns(appId: "${tenant.appId}", tags: ["a", 5]) { limit } }`, undefined, 'validation_error', 'tags.1');
    // Through a fragment at the root as well.
    await refused(`query { ...Q } fragment Q on Query { messages(appId: "not-a-uuid") { limit } }`, undefined, 'validation_error', 'appId');
  });

  it('a document that is not valid otherwise is invalid_request: syntax, unknown fields, limits', async () => {
    await refused('{ messages(', undefined, 'invalid_request');
    await refused('{ noSuchField }', undefined, 'invalid_request');
    const aliases = Array.from({ length: 6 }, (_, i) => `a${i}: viewer { clientId }`).join(' ');
    await refused(`{ ${aliases} }`, undefined, 'invalid_request');
  });

  it('a valid document still runs', async () => {
    const res = await gql(server.url, tenant.accessToken, 'query($app: UUID!, $n: Int) { messages(appId: $app, first: $n) { limit } }', { app: tenant.appId, n: 5 });
    expect(res.status).toBe(200);
    expect(res.body.data.messages.limit).toBe(5);
  });
});
