import { beforeAll, describe, expect, it } from 'vitest';
import { gql, request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { campaign, importRecords, template } from './fixtures.js';

// Campaign and template names are searched as a literal substring in any case: the characters
// LIKE treats as wildcards or escapes match only themselves.
const { server, tenant } = useServer({ tenant: { scopes: ['analytics:read', 'campaigns:read'] } });

const NAMES = ['Spring 50% OFF_now', 'spring 500 offXnow', 'Ünïcödé ÉTÉ \\ back', 'plain', 'ÉTÉ-sale'];

beforeAll(() =>
  importRecords(server, tenant.appId, [
    ...NAMES.map((name, i) => campaign(i + 1, { name })),
    ...NAMES.map((name, i) => template(i + 1, { name: `tpl ${name}` })),
  ]),
);

const expected = (term: string) => NAMES.filter((n) => n.toLowerCase().includes(term.toLowerCase())).sort();
const app = () => `${server.url}/api/v1/analytics/${tenant.appId}`;

describe('name search: a literal substring in any case', () => {
  it.each([['0% off_'], ['%'], ['_'], ['\\'], ['SPRING 50'], ['été'], ['ünïcÖdÉ'], ['nothing like it']])('%s', async (term) => {
    const q = new URLSearchParams({ search: term, limit: '100' });
    const listed = await request<{ data: { name: string }[] }>(`${app()}/campaigns?${q}`, { token: tenant.accessToken });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c) => c.name).sort()).toEqual(expected(term));

    const searched = await request<{ data: { name: string }[] }>(`${app()}/campaigns/search`, { token: tenant.accessToken, json: { limit: 100, filter: { name: term } } });
    expect(searched.status).toBe(200);
    expect(searched.body.data.map((c) => c.name).sort()).toEqual(expected(term));

    const templates = await request<{ data: { name: string }[] }>(`${app()}/templates?${q}`, { token: tenant.accessToken });
    expect(templates.status).toBe(200);
    expect(templates.body.data.map((t) => t.name.slice('tpl '.length)).sort()).toEqual(expected(term));
  });

  it('GraphQL campaigns finds the same', async () => {
    const res = await gql(server.url, tenant.accessToken, `query($app: UUID!) { campaigns(appId: $app, first: 100, search: "0% OFF_") { nodes { name } } }`, { app: tenant.appId });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.campaigns.nodes.map((c: { name: string }) => c.name)).toEqual(['Spring 50% OFF_now']);
  });
});
