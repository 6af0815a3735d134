import { MessageRef } from '../analytics/messages.graphql.js';
import { builder } from '../graphql/builder.js';
import { SendKindEnum, SentMessageRef } from './sends.graphql.js';
import { asNode } from '../graphql/node.js';
import { getSentMessage, sentMessagesWhere, type SentMessageDetails } from './service.js';
import { sendDetails } from './tables.js';

// A message sent through this service, read back with its payload (its Flow reply: kinds/flow.graphql.ts).
// Scope: messages:read. It is the send's side of a Message, keyed by the same messageId, yet a Node
// of its own: a global id answers one type, and the Message's already answers Message.

export const SentMessageDetailsRef = builder.objectRef<SentMessageDetails>('SentMessageDetails').implement({
  description: 'A message sent through this service: the payload as sent and the Flow reply, if any.',
  fields: (t) => ({
    messageId: t.exposeString('messageId', { description: 'The message id.' }),
    kind: t.expose('kind', { type: SendKindEnum, description: 'flow, product_list or template.' }),
    flowToken: t.exposeString('flowToken', { description: 'The flow_token of a Flow send (echoed in the reply), else null.', nullable: true }),
    providerMessageId: t.exposeString('providerMessageId', { description: "The provider's id for the message.", nullable: true }),
    payload: t.field({ type: 'JSON', description: 'The body as sent (unmatched product items dropped).', resolve: (d) => d.payload }),
    message: t.field({ description: 'The payload as sent.', type: MessageRef, resolve: (d) => d.message }),
  }),
});

builder.objectField(SentMessageRef, 'details', (t) =>
  t.field({
    type: SentMessageDetailsRef,
    nullable: true,
    description: 'The message as it is now (payload, Flow reply, current status through details.message); its id is the global id. Scope: messages:read.',
    authScopes: (receipt) => ({ $all: { scope: 'messages:read', app: receipt.appId } }),
    resolve: (receipt, _args, ctx) => getSentMessage(ctx, receipt.appId, receipt.id),
  }),
);

builder.queryField('sentMessage', (t) =>
  t.field({
    type: SentMessageDetailsRef,
    description: 'A message sent through this service, with its payload and Flow reply; not_found otherwise. Scope: messages:read.',
    authScopes: (_root, args) => ({ $all: { scope: 'messages:read', app: args.appId } }),
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }), messageId: t.arg.string({ description: 'The message id.', required: true }) },
    resolve: (_root, args, ctx) => getSentMessage(ctx, args.appId, args.messageId),
  }),
);

asNode(SentMessageDetailsRef, {
  table: sendDetails,
  appId: sendDetails.appId,
  id: sendDetails.messageId,
  uuid: false,
  scope: 'messages:read',
  rows: (ctx, where) => sentMessagesWhere(ctx, where),
  appIdOf: (row) => row.appId,
  rawIdOf: (row) => row.messageId,
});
