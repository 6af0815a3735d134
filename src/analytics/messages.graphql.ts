import { builder } from '../graphql/builder.js';
import { messageFilters as shape, messageListArgs, messageStatuses } from './filters.js';
import { listMessages, type Page } from './messages.service.js';
import type { MessageRow } from './tables.js';

export const MessageRef = builder.objectRef<MessageRow>('Message').implement({
  description: 'A connector message (SPEC "Message"). Scope: messages:read.',
  fields: (t) => ({
    id: t.exposeString('id'),
    source: t.exposeString('source', { description: 'Connector source system.' }),
    destination: t.exposeString('destination', { description: 'Connector destination system.' }),
    providerFrom: t.exposeString('providerFrom'),
    providerTo: t.exposeString('providerTo'),
    channel: t.exposeString('channel', { description: 'Messaging channel name.' }),
    direction: t.exposeString('direction', { description: 'inbound or outbound.' }),
    messageType: t.exposeString('messageType', { description: 'Provider message type.' }),
    userPhone: t.exposeString('userPhone', { description: 'Digits.' }),
    conversationKey: t.exposeString('conversationKey'),
    providerMessageId: t.exposeString('providerMessageId'),
    status: t.exposeString('status', { description: `One of ${messageStatuses.join(', ')}.` }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true }),
    failedAt: t.expose('failedAt', { type: 'DateTime', nullable: true }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    readAt: t.expose('readAt', { type: 'DateTime', nullable: true }),
    errorMessage: t.exposeString('errorMessage', { nullable: true }),
    campaignId: t.exposeID('campaignId', { nullable: true }),
    cost: t.exposeFloat('cost'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const PageInfo = builder.objectRef<{ hasNextPage: boolean; endCursor: string | null }>('PageInfo').implement({
  description: 'Keyset pagination: pass endCursor as `after` for the next page.',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage'),
    endCursor: t.exposeString('endCursor', { nullable: true }),
  }),
});

const MessageEdge = builder.objectRef<{ node: MessageRow; cursor: string }>('MessageEdge').implement({
  fields: (t) => ({
    node: t.field({ type: MessageRef, resolve: (edge) => edge.node }),
    cursor: t.exposeString('cursor'),
  }),
});

const MessageConnection = builder.objectRef<Page<MessageRow>>('MessageConnection').implement({
  description: 'A page of messages, newest first (created_at desc, id desc).',
  fields: (t) => ({
    nodes: t.field({ type: [MessageRef], resolve: (page) => page.items }),
    edges: t.field({
      type: [MessageEdge],
      // Every edge's cursor is the position of its node; only the last one is issued by default.
      resolve: (page) => page.items.map((node, i) => ({ node, cursor: i === page.items.length - 1 && page.nextCursor ? page.nextCursor : '' })),
    }),
    pageInfo: t.field({ type: PageInfo, resolve: (page) => ({ hasNextPage: page.hasMore, endCursor: page.nextCursor }) }),
    limit: t.exposeInt('limit', { description: 'The page size used.' }),
  }),
});

builder.queryField('messages', (t) =>
  t.field({
    type: MessageConnection,
    description: 'Connector messages of an app, newest first, filtered like GET /analytics/{appId}/messages. Scope: messages:read.',
    authScopes: (_root, args) => ({ $all: { scope: 'messages:read', app: args.appId } }),
    // A page of up to 200 rows weighs as 10 list items of the default budget.
    complexity: (args) => ({ field: 1, multiplier: Math.ceil(((args.first as number | null) ?? 50) / 20) }),
    args: {
      appId: t.arg({ type: 'UUID', required: true }),
      first: t.arg.int({ description: 'Page size, 1 to 200 (default 50).', validate: { schema: shape.first } }),
      after: t.arg.string({ description: 'pageInfo.endCursor of the previous page.', validate: { schema: shape.after } }),
      status: t.arg.string({ validate: { schema: shape.status } }),
      direction: t.arg.string({ validate: { schema: shape.direction } }),
      channel: t.arg.string({ validate: { schema: shape.channel } }),
      messageType: t.arg.string({ validate: { schema: shape.messageType } }),
      source: t.arg.string({ validate: { schema: shape.source } }),
      destination: t.arg.string({ validate: { schema: shape.destination } }),
      search: t.arg.string({
        description: 'Case-insensitive substring of user_phone, provider_message_id, conversation_key, provider_from or provider_to.',
        validate: { schema: shape.search },
      }),
      startDate: t.arg.string({ description: 'YYYY-MM-DD, UTC, inclusive.', validate: { schema: shape.startDate } }),
      endDate: t.arg.string({ description: 'YYYY-MM-DD, UTC, inclusive.', validate: { schema: shape.endDate } }),
    },
    validate: [(args) => !args.startDate || !args.endDate || args.startDate <= args.endDate, { message: 'endDate must not be before startDate', path: ['endDate'] }],
    resolve: (_root, args, ctx) => listMessages(ctx, messageListArgs.parse(args)),
  }),
);
