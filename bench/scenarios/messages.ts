import { encodeCursor } from '../../src/db/cursor.js';
import { appList } from '../../src/db/keyset.js';
import type { Scenario } from '../types.js';
import { floorGet, get, limitOf, listPage, MESSAGE_COLUMNS, MESSAGE_ORDER, messageItem, sameIds } from './common.js';

const LIMIT = 50;
const path = (appId: string, query: string) => `/api/v1/analytics/${appId}/messages?${query}`;

export const messagesPage: Scenario = {
  name: 'messages_page',
  title: 'Messages page, no filter (REST)',
  request: (ctx) => get(path(ctx.dataset.appId, `limit=${LIMIT}`), ctx),
  floorRequest: (ctx) => floorGet('messages_page', { app: ctx.dataset.appId, limit: LIMIT }),
  floor: {
    sql: `${MESSAGE_COLUMNS} where "messages"."app_id" = $1 ${MESSAGE_ORDER} limit $2`,
    plannedOnce: true,
    params: (q) => [q.get('app'), limitOf(q) + 1],
    respond: (rows, q) => listPage(rows, limitOf(q), messageItem),
  },
  compare: sameIds,
};

const FILTER = { status: 'delivered', direction: 'outbound', channel: 'sms' };

export const messagesFiltered: Scenario = {
  name: 'messages_filtered',
  title: 'Messages page, status+direction+channel filter (REST)',
  request: (ctx) => get(path(ctx.dataset.appId, `${new URLSearchParams(FILTER).toString()}&limit=${LIMIT}`), ctx),
  floorRequest: (ctx) => floorGet('messages_filtered', { app: ctx.dataset.appId, limit: LIMIT, ...FILTER }),
  floor: {
    sql:
      `${MESSAGE_COLUMNS} where ("messages"."app_id" = $1 and "messages"."status" = $2 and "messages"."direction" = $3 ` +
      `and "messages"."channel" = $4) ${MESSAGE_ORDER} limit $5`,
    params: (q) => [q.get('app'), q.get('status'), q.get('direction'), q.get('channel'), limitOf(q) + 1],
    respond: (rows, q) => listPage(rows, limitOf(q), messageItem),
  },
  compare: sameIds,
};

export const messagesSearch: Scenario = {
  name: 'messages_search',
  title: 'Messages page, search by a phone number (REST)',
  request: (ctx) => get(path(ctx.dataset.appId, `search=${ctx.dataset.probe.searchPhone}&limit=${LIMIT}`), ctx),
  floorRequest: (ctx) => floorGet('messages_search', { app: ctx.dataset.appId, limit: LIMIT, search: ctx.dataset.probe.searchPhone }),
  floor: {
    // The service's conditions for a term of five or more characters (the probe's phone number):
    // the 5-gram index first, then strpos over lower() decides.
    sql:
      `${MESSAGE_COLUMNS} where ("messages"."app_id" = $1 ` +
      `and message_search_grams("messages"."user_phone", "messages"."provider_message_id", "messages"."conversation_key", "messages"."provider_from", "messages"."provider_to") ` +
      `@> message_search_grams($3::text) and (${['user_phone', 'provider_message_id', 'conversation_key', 'provider_from', 'provider_to']
        .map((field) => `strpos(lower("messages"."${field}"), lower($3::text)) > 0`)
        .join(' or ')})) ${MESSAGE_ORDER} limit $2`,
    params: (q) => [q.get('app'), limitOf(q) + 1, q.get('search') ?? ''],
    respond: (rows, q) => listPage(rows, limitOf(q), messageItem),
  },
  compare: sameIds,
};

export const messagesDeep: Scenario = {
  name: 'messages_deep_cursor',
  title: 'Messages page at 90% depth through a cursor (REST)',
  request: (ctx) => {
    const { createdAt, id } = ctx.dataset.probe.deep;
    return get(path(ctx.dataset.appId, `limit=${LIMIT}&cursor=${encodeCursor([Buffer.from(ctx.dataset.probe.cursorKey ?? '', 'base64url')], appList('messages', ctx.dataset.appId), { createdAt: new Date(createdAt), id })}`), ctx);
  },
  floorRequest: (ctx) =>
    floorGet('messages_deep_cursor', { app: ctx.dataset.appId, limit: LIMIT, before_ts: ctx.dataset.probe.deep.createdAt, before_id: ctx.dataset.probe.deep.id }),
  floor: {
    sql: `${MESSAGE_COLUMNS} where ("messages"."app_id" = $1 and ("messages"."created_at", "messages"."id") < ($2::timestamptz, $3)) ${MESSAGE_ORDER} limit $4`,
    plannedOnce: true,
    params: (q) => [q.get('app'), q.get('before_ts'), q.get('before_id'), limitOf(q) + 1],
    respond: (rows, q) => listPage(rows, limitOf(q), messageItem),
  },
  compare: sameIds,
};

// The REST route's document, as a GraphQL client would send it (camelCase fields); the Mercurius peer takes it as is.
export const graphqlDocument = `query Messages($appId: UUID!, $first: Int) {
  messages(appId: $appId, first: $first) {
    limit pageInfo { hasNextPage endCursor }
    nodes { id: messageId source destination providerFrom providerTo channel direction messageType userPhone conversationKey
      providerMessageId status sentAt failedAt errorMessage createdAt }
  }
}`;

export const graphqlMessagesPage: Scenario = {
  name: 'graphql_messages_page',
  title: 'Messages page, no filter (GraphQL POST /graphql)',
  request: (ctx) => ({
    method: 'POST',
    path: '/graphql',
    headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: graphqlDocument, variables: { appId: ctx.dataset.appId, first: LIMIT } }),
  }),
  floorRequest: messagesPage.floorRequest,
  floor: messagesPage.floor,
  compare: { service: (body: { data: { messages: { nodes: { id: string }[] } } }) => body.data.messages.nodes.map((n) => n.id), floor: sameIds.floor },
  versus: 'messages_page',
};

/**
 * The unfiltered page at an offered load, not at saturation: with 32 connections kept busy, each
 * request waits behind the others (p50 is about 32 ÷ req/s by Little's law), so latency there
 * measures the queue. An offered rate well under either server's saturation (`rate` below;
 * BENCH_PACED_RATE sets both), over at most the same 32 connections, measures the page itself.
 */
export const messagesPagePaced: Scenario = {
  ...messagesPage,
  name: 'messages_page_paced',
  title: 'Messages page, no filter (REST), at an offered load',
  floorRequest: (ctx) => floorGet('messages_page_paced', { app: ctx.dataset.appId, limit: LIMIT }),
  rate: {
    postgres: Number(process.env.BENCH_PACED_RATE ?? 500),
    pglite: Number(process.env.BENCH_PACED_RATE ?? 150),
  },
};
