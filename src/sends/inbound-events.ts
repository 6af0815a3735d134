import { z } from 'zod';
import { storableJsonObject, storableText } from '../validation/storable.js';
import { instantString } from '../time/instant-input.js';
import { deliveryStatuses } from './delivery-status.js';

// The provider's events posted to /messaging/{appId}/inbound, in the shape docs/sends.md
// documents.

const phoneNumber = z.string().regex(/^\+?\d{6,20}$/, { message: 'must be a phone number of 6 to 20 digits, optionally with a leading +' });

/**
 * When it happened at the provider; default now. Later than now plus MAX_CLOCK_SKEW_MS is refused
 * by the mutation, against the request's clock (refuseFutureTime).
 */
const timestamp = instantString.optional();

// Text the event stores or looks up: refused when PostgreSQL cannot hold it (validation/storable.ts).
const text = (min: number, max: number) => storableText(z.string().min(min).max(max));

export const inboundMessageEvent = z.strictObject({
  type: z.literal('message'),
  /** The provider's message id; a redelivered event with the same id is stored once. */
  id: text(1, 200),
  from: phoneNumber,
  /** The business number the user wrote to. */
  to: phoneNumber.optional(),
  timestamp,
  message_type: text(1, 50).optional(),
  text: text(0, 4096).optional(),
  /** A submitted Flow: the flow_token of the send and the user's answers. */
  flow_reply: z
    .strictObject({
      flow_token: text(1, 512),
      response: storableJsonObject().default({}),
    })
    .optional(),
});

export const statusUpdateEvent = z
  .strictObject({
    type: z.literal('status'),
    provider_message_id: text(1, 200),
    status: z.enum(deliveryStatuses),
    timestamp,
    error: z.strictObject({ message: text(1, 1000) }).optional(),
  })
  .superRefine((event, ctx) => {
    if (event.error && event.status !== 'failed') {
      ctx.addIssue({ code: 'custom', path: ['error'], message: 'only a failed status carries an error', params: { code: 'unrecognized' } });
    }
  })
  // The same rule, as the OpenAPI document states it.
  .meta({ if: { properties: { status: { not: { const: 'failed' } } } }, then: { not: { required: ['error'] } } });

export const inboundEventSchema = z.discriminatedUnion('type', [inboundMessageEvent, statusUpdateEvent]);

export type InboundMessageEvent = z.output<typeof inboundMessageEvent>;
export type StatusUpdateEvent = z.output<typeof statusUpdateEvent>;
export type InboundEvent = z.output<typeof inboundEventSchema>;
