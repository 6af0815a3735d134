import type { HttpRequest, ScenarioContext } from '../types.js';

// The SQL below is the text drizzle sends for these reads (captured from the services'
// query log), so the floor does the same database work as the service.

export const MESSAGE_COLUMNS =
  'select "app_id", "id", "source", "destination", "provider_from", "provider_to", "channel", "direction", "message_type", ' +
  '"user_phone", "conversation_key", "provider_message_id", "status", "sent_at", "failed_at", "delivered_at", "read_at", ' +
  '"error_message", "campaign_id", "cost", "created_at" from "messages"';

export const MESSAGE_ORDER = 'order by "messages"."created_at" desc, "messages"."id" desc';

export const authHeaders = (ctx: ScenarioContext, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${ctx.token}`, ...extra });

export const get = (path: string, ctx: ScenarioContext): HttpRequest => ({ method: 'GET', path, headers: authHeaders(ctx) });

export const postJson = (path: string, body: unknown, ctx: ScenarioContext | undefined): HttpRequest => ({
  method: 'POST',
  path,
  headers: { 'content-type': 'application/json', ...(ctx ? { authorization: `Bearer ${ctx.token}` } : {}) },
  body: JSON.stringify(body),
});

export const floorGet = (name: string, params: Record<string, string | number>): HttpRequest => ({
  method: 'GET',
  path: `/${name}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString()}`,
});

export const limitOf = (q: URLSearchParams) => Number(q.get('limit') ?? 50);

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : value === null ? null : String(value));

/** A message as a list item: the sixteen list fields, what the REST route returns. */
export function messageItem(r: Record<string, unknown>) {
  return {
    id: r.id,
    source: r.source,
    destination: r.destination,
    provider_from: r.provider_from,
    provider_to: r.provider_to,
    channel: r.channel,
    direction: r.direction,
    message_type: r.message_type,
    user_phone: r.user_phone,
    conversation_key: r.conversation_key,
    provider_message_id: r.provider_message_id,
    status: r.status,
    sent_at: iso(r.sent_at),
    failed_at: iso(r.failed_at),
    error_message: r.error_message,
    created_at: iso(r.created_at),
  };
}

/** A keyset page in the REST list envelope; the floor's cursor is plain base64url JSON of the last row. */
export function listPage(rows: Record<string, unknown>[], limit: number, item: (r: Record<string, unknown>) => unknown) {
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  const nextCursor = hasMore && last ? Buffer.from(JSON.stringify([iso(last.created_at), last.id])).toString('base64url') : null;
  return { data: page.map(item), meta: { timestamp: new Date().toISOString() }, pagination: { limit, hasMore, nextCursor } };
}

/** Both sides list the same rows in the same order. */
export const sameIds = {
  service: (body: { data: { id: string }[] }) => body.data.map((r) => r.id),
  floor: (body: { data: { id: string }[] }) => body.data.map((r) => r.id),
};
