import { describe, expect, it } from 'vitest';
import { gql } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server, tenant } = useServer({ tenant: true });
const q = (query: string, variables: Record<string, unknown> = {}) => gql(server.url, tenant.accessToken, query, { app: tenant.appId, ...variables });
const errorOf = (res: { body: { errors?: { extensions?: Record<string, any> }[] } }) => res.body.errors?.[0]?.extensions;

describe('filter validation', () => {
  it('a refused filter value names filter.<field>, with the root field’s error type', async () => {
    const res = await q(`query($app: ID!) { app(id: $app) { messages(filter: { search: "" }) { limit } } }`);
    expect(errorOf(res)?.code).toBe('validation_error');
    expect(errorOf(res)?.details).toEqual([{ field: 'filter.search', code: 'too_small', message: expect.any(String) }]);
    const dates = await q(`query($app: UUID!) { messages(appId: $app, filter: { startDate: "2026-03-05", endDate: "2026-03-01" }) { limit } }`);
    expect(errorOf(dates)?.details).toEqual([{ field: 'filter.endDate', code: 'invalid_value', message: 'must not be before startDate' }]);
    // Scheduling lists answer invalid_request, on App as on the root field.
    const calls = await q(`query($app: ID!) { app(id: $app) { scheduledCalls(first: 500) { limit } } }`);
    expect(errorOf(calls)?.code).toBe('invalid_request');
    expect(errorOf(calls)?.details?.[0]?.field).toBe('first');
    const campaigns = await q(`query($app: ID!, $f: CampaignFilter) { app(id: $app) { campaigns(filter: $f) { limit } } }`, {
      f: { createdFrom: '2026-03-05T00:00:00Z', createdBefore: '2026-03-01T00:00:00Z' },
    });
    expect(errorOf(campaigns)?.details).toEqual([{ field: 'filter.createdBefore', code: 'invalid_value', message: expect.any(String) }]);
  });

  it('a value outside an enum of the filter names filter.status', async () => {
    const literal = await q(`query($app: ID!) { app(id: $app) { messages(filter: { status: bogus }) { limit } } }`);
    expect(errorOf(literal)?.code).toBe('validation_error');
    expect(errorOf(literal)?.details?.[0]?.field).toBe('filter.status');
    const variable = await q(`query($app: UUID!, $f: MessageFilter) { messages(appId: $app, filter: $f) { limit } }`, { f: { status: 'bogus' } });
    expect(errorOf(variable)?.code).toBe('validation_error');
    expect(errorOf(variable)?.details?.[0]?.field).toMatch(/(^|\.)status$/);
  });

  it('filter together with a loose filter argument is refused, naming filter', async () => {
    const res = await q(`query($app: UUID!) { messages(appId: $app, status: sent, filter: { direction: inbound }) { limit } }`);
    expect(errorOf(res)?.code).toBe('validation_error');
    expect(errorOf(res)?.details).toEqual([{ field: 'filter', code: 'invalid_value', message: expect.stringContaining('status') }]);
    const calls = await q(`query($app: UUID!) { scheduledCalls(appId: $app, status: scheduled, filter: {}) { limit } }`);
    expect(errorOf(calls)?.code).toBe('invalid_request');
    expect(errorOf(calls)?.details?.[0]?.field).toBe('filter');
  });

  it('app needs exactly one of id and appId, and id must name an App', async () => {
    const both = await q(`query($app: UUID!) { app(id: "x", appId: $app) { appId } }`);
    expect(errorOf(both)?.details?.[0]).toMatchObject({ field: 'id', code: 'invalid_value' });
    const neither = await q(`{ app { appId } }`, {});
    expect(errorOf(neither)?.details?.[0]).toMatchObject({ field: 'id', code: 'required' });
    const message = Buffer.from('Message:msg-1').toString('base64');
    const wrongType = await q(`query($id: ID!) { app(id: $id) { appId } }`, { id: message });
    expect(errorOf(wrongType)?.code).toBe('validation_error');
    expect(errorOf(wrongType)?.details?.[0]).toMatchObject({ field: 'id', code: 'invalid_value' });
  });
});
