import { z } from 'zod';
import { instantString } from '../time/instant-input.js';
import { deliveryStatuses } from './delivery-status.js';

// The provider's events posted to /messaging/{appId}/inbound (DESIGN section 8). SPEC leaves the
// shape open ("Inbound Flow response ... exact shape: not shown"); README "Sends" documents it.

const MAX_CLOCK_SKEW_MS = 5 * 60_000;

const phoneNumber = z.string().regex(/^\+?\d{6,20}$/, { message: 'must be a phone number of 6 to 20 digits, optionally with a leading +' });

/** When it happened at the provider; default now. A time in the future (beyond clock skew) is refused. */
const timestamp = instantString
  .refine((d) => d.getTime() <= Date.now() + MAX_CLOCK_SKEW_MS, { message: 'must not be in the future', params: { code: 'invalid_value' } })
  .optional();

export const inboundMessageEvent = z.strictObject({
  type: z.literal('message'),
  /** The provider's message id; a redelivered event with the same id is stored once. */
  id: z.string().min(1).max(200),
  from: phoneNumber,
  /** The business number the user wrote to. */
  to: phoneNumber.optional(),
  timestamp,
  message_type: z.string().min(1).max(50).optional(),
  text: z.string().max(4096).optional(),
  /** A submitted Flow: the flow_token of the send and the user's answers. */
  flow_reply: z
    .strictObject({
      flow_token: z.string().min(1).max(512),
      response: z.record(z.string(), z.unknown()).default({}),
    })
    .optional(),
});

export const statusUpdateEvent = z
  .strictObject({
    type: z.literal('status'),
    provider_message_id: z.string().min(1).max(200),
    status: z.enum(deliveryStatuses),
    timestamp,
    error: z.strictObject({ message: z.string().min(1).max(1000) }).optional(),
  })
  .superRefine((event, ctx) => {
    if (event.error && event.status !== 'failed') {
      ctx.addIssue({ code: 'custom', path: ['error'], message: 'only a failed status carries an error', params: { code: 'unrecognized' } });
    }
  });

export const inboundEventSchema = z.discriminatedUnion('type', [inboundMessageEvent, statusUpdateEvent]);

export type InboundMessageEvent = z.output<typeof inboundMessageEvent>;
export type StatusUpdateEvent = z.output<typeof statusUpdateEvent>;
export type InboundEvent = z.output<typeof inboundEventSchema>;
