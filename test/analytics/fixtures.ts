import { Readable } from 'node:stream';
import { importNdjson } from '../../src/importer/ndjson.js';
import { importTypes } from '../../src/importer/types.js';
import { request } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';

/** Imports records through the real NDJSON importer, so tests see what an import writes. */
export async function importRecords(server: TestServer, appId: string, records: object[]) {
  const text = records.map((r) => JSON.stringify(r)).join('\n');
  return importNdjson({ db: server.runtime.database.db, appId, input: Readable.from([text]), types: importTypes });
}

export function message(n: number, overrides: Record<string, unknown> = {}) {
  const created = new Date(Date.UTC(2026, 2, 1, 12, 0, 0) + n * 3_600_000);
  return {
    type: 'message',
    id: `msg-${String(n).padStart(5, '0')}`,
    source: n % 2 ? 'whatsapp' : 'crm',
    destination: n % 2 ? 'crm' : 'whatsapp',
    provider_from: `4477000${String(Math.abs(n)).padStart(5, "0")}`,
    provider_to: '447700900000',
    channel: n % 3 ? 'whatsapp' : 'sms',
    direction: n % 2 ? 'inbound' : 'outbound',
    message_type: n % 4 ? 'text' : 'interactive',
    user_phone: `4477000${String(Math.abs(n)).padStart(5, "0")}`,
    conversation_key: `conv-${n % 7}`,
    provider_message_id: `wamid.${n}`,
    status: ['sent', 'delivered', 'read', 'failed'][n % 4],
    sent_at: created.toISOString(),
    failed_at: n % 4 === 3 ? created.toISOString() : null,
    error_message: n % 4 === 3 ? 'undeliverable' : null,
    created_at: created.toISOString(),
    cost: 0.01,
    ...overrides,
  };
}

export function campaign(n: number, overrides: Record<string, unknown> = {}) {
  return {
    type: 'campaign',
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    name: `Campaign ${n}`,
    status: ['active', 'completed', 'paused', 'failed', 'scheduled', 'running'][n % 6],
    total_contacts: 100 + n,
    sent_count: 90 + n,
    created_at: new Date(Date.UTC(2026, 2, 1) + n * 86_400_000).toISOString(),
    tags: n % 2 ? ['spring', `t${n % 3}`] : ['autumn'],
    ...overrides,
  };
}

export function template(n: number, overrides: Record<string, unknown> = {}) {
  return {
    type: 'template',
    id: `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`,
    name: `order_update_${n}`,
    category: n % 2 ? 'UTILITY' : 'MARKETING',
    language: n % 3 ? 'en_US' : 'pt_BR',
    status: 'APPROVED',
    header_type: 'TEXT',
    header_text: 'Order {{1}}',
    body_text: 'Hi {{1}}, your order {{2}} ships today.',
    body_variables: [
      { index: 1, type: 'text', example: 'Ana' },
      { index: 2, type: 'text', example: 'A-42' },
    ],
    footer_text: 'Reply STOP to opt out',
    buttons: [
      { type: 'QUICK_REPLY', text: 'Track' },
      { type: 'QUICK_REPLY', text: 'Help' },
      { type: 'URL', text: 'Open', url: 'https://example.com/o/{{1}}' },
    ],
    provider_template_id: `pt-${n}`,
    provider_status: 'APPROVED',
    provider_rejection_reason: null,
    provider_quality: 'GREEN',
    created_at: new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString(),
    updated_at: new Date(Date.UTC(2026, 0, 2) + n * 86_400_000).toISOString(),
    ...overrides,
  };
}

/** Six templates and three tagged campaigns; outbound messages of campaigns 1 and 2, plus an inbound one and one of no campaign that do not count. */
export const seedTemplatesAndTags = (server: TestServer, appId: string) =>
  importRecords(server, appId, [
    ...Array.from({ length: 6 }, (_, i) => template(i + 1)),
    campaign(1, { tags: ['black friday', 'été'] }),
    campaign(2, { tags: ['été'] }),
    campaign(3, { tags: ['unused-by-messages'] }),
    ...['sent', 'delivered', 'read', 'failed', 'read'].map((status, i) =>
      message(i * 2, { campaign_id: campaign(i % 2 ? 2 : 1).id, status, direction: 'outbound' }),
    ),
    message(101, { campaign_id: campaign(1).id, direction: 'inbound', status: 'received' }),
    message(102, { campaign_id: null, direction: 'outbound', status: 'read' }),
  ]);

/** 30 campaigns, one a day from 2026-03-02. */
export const seedCampaigns = (server: TestServer, appId: string) =>
  importRecords(server, appId, Array.from({ length: 30 }, (_, i) => campaign(i + 1)));

/** The campaigns list and search routes as the tenant; `server` and `tenant` are read at call time. */
export const campaignsApi = (server: TestServer, tenant: Tenant) => ({
  get: (query = '', token = tenant.accessToken, appId = tenant.appId) =>
    request(`${server.url}/api/v1/analytics/${appId}/campaigns${query}`, { token }),
  search: (body: unknown, token = tenant.accessToken) =>
    request(`${server.url}/api/v1/analytics/${tenant.appId}/campaigns/search`, { token, json: body }),
});
