import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { importRecords, template } from '../analytics/fixtures.js';
import { gql, request } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';

export { importRecords };

let phoneSeq = 0;
/** A fresh recipient number per test, so windows never leak between tests. */
export const newPhone = () => `4477009${String(Date.now() % 100000).padStart(5, '0')}${String(++phoneSeq).padStart(3, '0')}`;
export const newToken = () => `ft-${randomUUID()}`;

export function flowBody(to: string, parameters: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    to,
    type: 'interactive',
    interactive: {
      type: 'flow',
      header: { type: 'text', text: 'Book a table' },
      body: { text: 'Pick a time that suits you.' },
      footer: { text: 'Tap below' },
      action: {
        name: 'flow',
        parameters: {
          flow_message_version: '3',
          flow_token: newToken(),
          flow_id: '1234567890',
          flow_cta: 'Book now',
          flow_action: 'navigate',
          flow_action_payload: { screen: 'WELCOME', data: { party: 2 } },
          ...parameters,
        },
      },
    },
    ...extra,
  };
}

export function productListBody(to: string, catalogId: string, ids: string[][], extra: Record<string, unknown> = {}) {
  return {
    to,
    type: 'interactive',
    interactive: {
      type: 'product_list',
      header: { type: 'text', text: 'Our picks' },
      body: { text: 'Have a look at these.' },
      action: {
        catalog_id: catalogId,
        sections: ids.map((items, i) => ({ title: `Section ${i + 1}`, product_items: items.map((id) => ({ product_retailer_id: id })) })),
      },
    },
    ...extra,
  };
}

export function templateBody(to: string, template: Record<string, unknown>) {
  return { to, type: 'template', template: { language: 'en_US', ...template } };
}

/** An approved template with one body placeholder and a Flow button, and one without buttons. */
export const flowTemplate = (n: number, overrides: Record<string, unknown> = {}) =>
  template(n, {
    name: `book_table_${n}`,
    language: 'en_US',
    body_text: 'Hi {{1}}, book your table for {{2}}.',
    buttons: [{ type: 'FLOW', text: 'Book' }],
    ...overrides,
  });

export const catalogRecords = (catalogId: string, ids: string[]) => [
  { type: 'catalog', id: catalogId, name: `Catalog ${catalogId}` },
  ...ids.map((id, i) => ({ type: 'product', catalog_id: catalogId, product_retailer_id: id, name: `Product ${id}`, price: 10 + i })),
];

export function send(server: TestServer, tenant: Pick<Tenant, 'appId' | 'accessToken'>, body: unknown, headers: Record<string, string> = {}) {
  return request(`${server.url}/api/v1/messaging/${tenant.appId}/messages`, { token: tenant.accessToken, json: body, headers });
}

export function inbound(server: TestServer, tenant: Pick<Tenant, 'appId' | 'accessToken'>, event: unknown) {
  return request(`${server.url}/api/v1/messaging/${tenant.appId}/inbound`, { token: tenant.accessToken, json: event });
}

/** An inbound text from `phone`, `hoursAgo` hours ago (opens the window when under 24). */
export function userWrote(server: TestServer, tenant: Pick<Tenant, 'appId' | 'accessToken'>, phone: string, hoursAgo = 0) {
  return inbound(server, tenant, {
    type: 'message',
    id: `wamid.in.${randomUUID()}`,
    from: phone,
    to: '447700900000',
    timestamp: new Date(Date.now() - hoursAgo * 3_600_000).toISOString(),
    text: 'hello',
  });
}

export function statusUpdate(server: TestServer, tenant: Pick<Tenant, 'appId' | 'accessToken'>, providerMessageId: string, status: string, at: string, extra: Record<string, unknown> = {}) {
  return inbound(server, tenant, { type: 'status', provider_message_id: providerMessageId, status, timestamp: at, ...extra });
}

export { gql };

/** The app's metrics/summary figures. */
export async function metricsSummary(server: TestServer, t: Pick<Tenant, 'appId' | 'accessToken'>) {
  const res = await request(`${server.url}/api/v1/analytics/${t.appId}/metrics/summary`, { token: t.accessToken });
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The app's messages that analytics finds for `search`. */
export async function messagesMatching(server: TestServer, t: Pick<Tenant, 'appId' | 'accessToken'>, search: string) {
  const res = await request(`${server.url}/api/v1/analytics/${t.appId}/messages?search=${encodeURIComponent(search)}`, { token: t.accessToken });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; status: string; sent_at: string | null; failed_at: string | null; error_message: string | null }[];
}

/** A time `minutes` ago on a whole second; keep it inside metrics/summary's default range (the last 30 days). */
export const ago = (minutes: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - minutes * 60_000).toISOString();
