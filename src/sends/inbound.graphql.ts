import type { z } from 'zod';
import { MessageRef } from '../analytics/messages.graphql.js';
import { refuseFutureTime } from '../errors/zod-details.js';
import { builder } from '../graphql/builder.js';
import { closedEnum } from '../graphql/enums.js';
import { inboundEventSchema } from './inbound-events.js';
import { inboundEventKinds, ingestInboundEvent, type InboundResult } from './service.js';

// The provider's inbound events: messages from users and status updates. Scope: messages:ingest.

const InboundEventKindEnum = closedEnum('InboundEventKind', inboundEventKinds, 'What the provider sent: an inbound message or a status update.');

const InboundEventResult = builder.objectRef<InboundResult>('InboundEventResult').implement({ description: 'What an inbound event did: the event kind, whether it changed anything, and the message it stored or updated.',
  fields: (t) => ({
    event: t.expose('event', { type: InboundEventKindEnum, description: 'message or status.' }),
    applied: t.exposeBoolean('applied', {
      description: 'False for a redelivered message, or a status update that did not move the message (never backwards).',
    }),
    message: t.field({ description: 'The stored or updated message, when there is one.', type: MessageRef, resolve: (r) => r.message }),
    linkedMessageId: t.exposeString('linkedMessageId', { nullable: true, description: 'For a Flow reply: the send it answers.' }),
  }),
});

builder.mutationField('ingestInboundEvent', (t) =>
  t.field({
    type: InboundEventResult,
    description:
      "The provider's events (POST /messaging/{appId}/inbound): an inbound message (opens the 24-hour window; a Flow reply is linked to its send by flow_token and stored as flow_handled) or a status update (sent, delivered, read, failed; never moves a message backwards). Scope: messages:ingest.",
    authScopes: (_root, args) => ({ $all: { scope: 'messages:ingest', app: args.appId } }),
    args: {
      appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }),
      event: t.arg({ description: 'An inbound message or a status update from the provider.', type: 'JSON', required: true, validate: { schema: inboundEventSchema } }),
    },
    resolve: (_root, args, ctx) => {
      const event = args.event as z.output<typeof inboundEventSchema>;
      refuseFutureTime(ctx.runtime.clock.now(), 'event.timestamp', event.timestamp);
      return ingestInboundEvent(ctx, args.appId, event);
    },
  }),
);

