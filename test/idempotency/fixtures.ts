import { eq } from 'drizzle-orm';
import { idempotencyKeys } from '../../src/db/tables.js';
import { request } from '../helpers/http.js';
import type { Tenant, TestServer } from '../helpers/server.js';
import { agent, allDay, api, booking, futureDay, importRecords } from '../scheduling/fixtures.js';

export { booking, futureDay };

/** A tenant with two round-the-clock agents, and the scheduling API with an Idempotency-Key. */
export async function keyedTenant(server: TestServer, tenant?: Tenant) {
  const t = tenant ?? (await server.tenant());
  await importRecords(server, t.appId, [agent(1, 'UTC', allDay), agent(2, 'UTC', allDay)]);
  return { tenant: t, ...keyedApi(server, t) };
}

export function keyedApi(server: TestServer, tenant: Pick<Tenant, 'appId' | 'accessToken'>) {
  const a = api(server, tenant);
  const headers = (key: string | undefined): Record<string, string> => (key === undefined ? {} : { 'Idempotency-Key': key });
  return {
    a,
    create: (json: unknown, key?: string, token = tenant.accessToken) => request(`${a.base}/scheduled-calls`, { method: 'POST', token, json, headers: headers(key) }),
    patch: (id: string, json: unknown, key?: string) => request(`${a.base}/scheduled-calls/${id}`, { method: 'PATCH', token: tenant.accessToken, json, headers: headers(key) }),
    cancel: (id: string, json: unknown, key?: string) => request(`${a.base}/scheduled-calls/${id}`, { method: 'DELETE', token: tenant.accessToken, json, headers: headers(key) }),
    /** Scheduled calls of the app. */
    calls: async () => (await a.list()).body.data as { id: string; guest_name: string }[],
  };
}

/** The stored keys of an app (app '' for writes that name none). */
export const keysOf = (server: TestServer, appId: string) => server.runtime.database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.appId, appId));

export const SUBSCRIBE = `mutation Subscribe($appId: UUID!, $url: String!, $eventTypes: [WebhookEventType!]!) {
  createWebhookSubscription(appId: $appId, url: $url, eventTypes: $eventTypes) { secret subscription { id: subscriptionId } }
}`;
export const SUBSCRIPTIONS = `query($appId: UUID!) { webhookSubscriptions(appId: $appId) { id: subscriptionId } }`;
