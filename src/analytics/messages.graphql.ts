import { AppRef } from '../apps/graphql.js';
import { builder } from '../graphql/builder.js';
import { filterInput, listArgs } from '../graphql/list-filter.js';
import { directions, messageFilters, messageListArgs, messageStatuses } from './filters.js';
import { closedEnum } from '../graphql/enums.js';
import { getMessage, listMessages } from './messages.service.js';
import { keysetConnection, pageArgs, pageComplexity, toConnection } from '../graphql/connection.js';
import { messages, type MessageRow } from './tables.js';
import { asNode } from '../graphql/node.js';

export const MessageStatusEnum = closedEnum('MessageStatus', messageStatuses, 'The state a connector message is in.');
export const MessageDirectionEnum = closedEnum('MessageDirection', directions, 'Whether a message came from the user (inbound) or went to them (outbound).');

export const MessageRef = builder.objectRef<MessageRow>('Message').implement({
  description: 'A connector message. Scope: messages:read.',
  fields: (t) => ({
    messageId: t.exposeString('id', { description: 'Message id (raw).' }),
    source: t.exposeString('source', { description: 'Connector source system.' }),
    destination: t.exposeString('destination', { description: 'Connector destination system.' }),
    providerFrom: t.exposeString('providerFrom', { description: 'Sender number at the provider; null when unknown.', nullable: true }),
    providerTo: t.exposeString('providerTo', { description: 'Recipient number at the provider; null when unknown.', nullable: true }),
    channel: t.exposeString('channel', { description: 'Messaging channel name.' }),
    direction: t.expose('direction', { type: MessageDirectionEnum, description: 'inbound or outbound.' }),
    messageType: t.exposeString('messageType', { description: 'Provider message type.' }),
    userPhone: t.exposeString('userPhone', { description: 'Digits.' }),
    conversationKey: t.exposeString('conversationKey', { description: 'Conversation key.' }),
    providerMessageId: t.exposeString('providerMessageId', { description: "The provider's id for the message." }),
    status: t.expose('status', { type: MessageStatusEnum, description: 'Delivery state.' }),
    sentAt: t.expose('sentAt', { description: 'When it was sent, or null.', type: 'DateTime', nullable: true }),
    failedAt: t.expose('failedAt', { description: 'When it failed, or null.', type: 'DateTime', nullable: true }),
    deliveredAt: t.expose('deliveredAt', { description: 'When it was delivered, or null.', type: 'DateTime', nullable: true }),
    readAt: t.expose('readAt', { description: 'When it was read, or null.', type: 'DateTime', nullable: true }),
    errorMessage: t.exposeString('errorMessage', { description: 'Why it failed, or null.', nullable: true }),
    campaignId: t.exposeID('campaignId', { description: 'The campaign it was sent for, or null.', nullable: true }),
    cost: t.exposeFloat('cost', { description: 'Cost of the message.' }),
    createdAt: t.expose('createdAt', { description: 'When the message was stored (ISO 8601 UTC).', type: 'DateTime' }),
  }),
});

const MessageConnection = keysetConnection('Message', MessageRef, 'A page of messages, newest first (created_at desc, id desc).');

const MessageFilter = filterInput('MessageFilter', 'Which messages a list holds: every field given must match.', messageListArgs, {
  status: { description: 'Exact status.', type: MessageStatusEnum },
  direction: { description: 'inbound or outbound.', type: MessageDirectionEnum },
  channel: 'Messaging channel name (exact).',
  messageType: 'Provider message type (exact).',
  source: 'Connector source system (exact).',
  destination: 'Connector destination system (exact).',
  search: 'Case-insensitive substring of user_phone, provider_message_id, conversation_key, provider_from or provider_to.',
  startDate: 'YYYY-MM-DD, UTC, inclusive.',
  endDate: 'YYYY-MM-DD, UTC, inclusive; not before startDate.',
});

const messagesScope = (appId: string) => ({ $all: { scope: 'messages:read' as const, app: appId } });

builder.queryField('messages', (t) =>
  t.field({
    type: MessageConnection,
    description: 'Connector messages of an app, newest first, filtered like GET /analytics/{appId}/messages. Scope: messages:read.',
    authScopes: (_root, args) => messagesScope(args.appId),
    complexity: pageComplexity,
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      ...pageArgs(t.arg, { size: messageFilters.first, cursor: messageFilters.after }),
      status: t.arg({ type: MessageStatusEnum, description: 'Exact status filter.' }),
      direction: t.arg({ type: MessageDirectionEnum, description: 'inbound or outbound.' }),
      channel: t.arg.string({ description: 'Messaging channel name (exact).', validate: { schema: messageFilters.channel } }),
      messageType: t.arg.string({ description: 'Provider message type (exact).', validate: { schema: messageFilters.messageType } }),
      source: t.arg.string({ description: 'Connector source system (exact).', validate: { schema: messageFilters.source } }),
      destination: t.arg.string({ description: 'Connector destination system (exact).', validate: { schema: messageFilters.destination } }),
      search: t.arg.string({
        description: 'Case-insensitive substring of user_phone, provider_message_id, conversation_key, provider_from or provider_to.',
        validate: { schema: messageFilters.search },
      }),
      startDate: t.arg.string({ description: 'YYYY-MM-DD, UTC, inclusive.', validate: { schema: messageFilters.startDate } }),
      endDate: t.arg.string({ description: 'YYYY-MM-DD, UTC, inclusive.', validate: { schema: messageFilters.endDate } }),
      filter: t.arg({ type: MessageFilter, description: 'The filters as one input; not together with the separate filter arguments.' }),
    },
    resolve: (_root, args, ctx) => toConnection(ctx, listMessages(ctx, listArgs(messageListArgs, args))),
  }),
);

builder.objectField(AppRef, 'messages', (t) =>
  t.field({
    type: MessageConnection,
    description: 'Connector messages of this app, newest first (created_at desc, id desc). Scope: messages:read.',
    authScopes: (app) => messagesScope(app.id),
    complexity: pageComplexity,
    args: {
      ...pageArgs(t.arg, { size: messageFilters.first, cursor: messageFilters.after }),
      filter: t.arg({ type: MessageFilter, description: 'Which messages; default all.' }),
    },
    resolve: (app, args, ctx) => toConnection(ctx, listMessages(ctx, listArgs(messageListArgs, { ...args, appId: app.id }))),
  }),
);

builder.queryField('message', (t) =>
  t.field({
    type: MessageRef,
    description:
      'One message with its delivery timestamps (sentAt, deliveredAt, readAt, failedAt: the current state; no history of updates is kept); not_found when the app has none with this id. Scope: messages:read.',
    authScopes: (_root, args) => ({ $all: { scope: 'messages:read', app: args.appId } }),
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      id: t.arg.string({ description: 'The message id (raw, as the list shows it: messageId).', required: true, validate: { schema: messageFilters.messageId } }),
    },
    resolve: (_root, args, ctx) => getMessage(ctx, args.appId, args.id),
  }),
);

asNode(MessageRef, { table: messages, appId: messages.appId, id: messages.id, uuid: false, scope: 'messages:read', appIdOf: (row) => row.appId, rawIdOf: (row) => row.id });
