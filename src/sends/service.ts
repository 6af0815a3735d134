import { createHash, randomUUID } from 'node:crypto';
import { and, desc, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { messages, templates, type MessageRow } from '../analytics/tables.js';
import type { Queryable, Tx } from '../db/client.js';
import { AppError, conflict, notFound } from '../errors/app-error.js';
import type { RequestContext } from '../runtime.js';
import { applyStatusUpdate } from './delivery-status.js';
import { claimKey, completeClaim, releaseClaim, requestHash, type Claim } from './idempotency.js';
import type { InboundEvent, InboundMessageEvent, StatusUpdateEvent } from './inbound-events.js';
import { flowTokenOf, type FlowMessage } from './kinds/flow.js';
import { countProductItems, matchProducts, type ProductListMessage } from './kinds/product-list.js';
import { approvedTemplate } from './kinds/template.js';
import type { SendMessage } from './payloads.js';
import { ProviderRejectedError, sendProviderOf } from './provider.js';
import { sendDetails, type SendDetailsRow } from './tables.js';
import { releaseUntilDone, writeTransaction } from '../db/idempotency.js';
import { actorOf, recordEvents, type Actor, type NewAppEvent } from '../events/log.js';

// One service for every kind of send, REST and GraphQL alike: the window, the stored rows, the
// provider and the Idempotency-Key. What one kind needs of its own is in kinds/.

const WINDOW_MS = 24 * 3_600_000;
const CHANNEL = 'whatsapp';
// Connector systems of our own messages: the API hands sends to the channel; inbound ones come back.
const API_SYSTEM = 'api';

/** What a send is, and the message type it is stored with (a Flow and a Product List are both interactive). */
export const sendKinds = ['flow', 'product_list', 'template'] as const;
export type SendKind = (typeof sendKinds)[number];
export const sendMessageTypes = ['interactive', 'template'] as const;

/** The 202 response's message; stored as-is for Idempotency-Key replays. */
export interface SentMessage {
  id: string;
  status: string;
  to: string;
  kind: SendKind;
  messageType: (typeof sendMessageTypes)[number];
  providerMessageId: string;
  flowToken: string | null;
  templateName: string | null;
  productItemCount: number | null;
  createdAt: string;
}

export interface SendResult {
  message: SentMessage;
  replayed: boolean;
}

const digits = (phone: string) => phone.replace(/^\+/, '');
const conversationKey = (phone: string) => `${CHANNEL}:${phone}`;

export function kindOf(payload: SendMessage): SendKind {
  return payload.type === 'template' ? 'template' : payload.interactive.type;
}

/**
 * Sends one message. With an Idempotency-Key, the same body replays the first response and a
 * different one is 409 (idempotency.ts). Everything the send writes happens in one transaction,
 * together with completing the key; a failure stores nothing and frees the key.
 */
export async function sendMessage(ctx: RequestContext, appId: string, payload: SendMessage, idempotencyKey?: string): Promise<SendResult> {
  const db = ctx.runtime.database.db;
  let claim: Claim | undefined;
  if (idempotencyKey !== undefined) {
    const claimed = await claimKey(db, appId, idempotencyKey, requestHash(payload), ctx.runtime.clock.now());
    if ('replay' in claimed) return { message: claimed.replay as SentMessage, replayed: true };
    claim = claimed.claim;
  }
  // Once the provider has the message, a failure to store it must not free the key: a retry
  // would send it a second time. The claim is then left to go stale, as a crashed send's is.
  const progress = { providerAccepted: false };
  try {
    const message = await writeTransaction(ctx, async (tx) => {
      const sent = await send(ctx, tx, appId, payload, progress);
      if (claim) await completeClaim(tx, claim, sent);
      return sent;
    });
    return { message, replayed: false };
  } catch (error) {
    if (claim && !progress.providerAccepted) await releaseUntilDone(() => releaseClaim(db, claim), ctx.logger);
    if (isUniqueViolation(error, 'send_details_app_flow_token_key')) {
      throw conflict('flow_token is already used by another message of this app; every send needs a new one');
    }
    if (error instanceof ProviderRejectedError) {
      // The send stored nothing; the refusal itself is what the event log records.
      const resource = { to: payload.to, kind: kindOf(payload), error_message: error.message };
      await db.transaction((tx) => recordEvents(tx, appId, actorOf(ctx), [{ type: 'message.send_failed', resource }], ctx.runtime.clock.now()));
      throw new AppError('service_unavailable', `The provider refused the message: ${error.message}`);
    }
    throw error;
  }
}

async function send(ctx: RequestContext, tx: Tx, appId: string, payload: SendMessage, progress: { providerAccepted: boolean }): Promise<SentMessage> {
  const kind = kindOf(payload);
  const to = digits(payload.to);
  const now = ctx.runtime.clock.now();
  const latestInbound = await lastInbound(tx, appId, to);

  let stored: Record<string, unknown> = payload;
  let flowToken: string | null = null;
  let templateId: string | null = null;
  let templateName: string | null = null;
  let productItemCount: number | null = null;
  if (payload.type === 'template') {
    const template = await approvedTemplate(tx, appId, payload);
    templateId = template.id;
    templateName = template.name;
    flowToken = payload.template.flow_token ?? null;
  } else {
    // Flow and Product List only inside the 24-hour window after the user's last message, as
    // WhatsApp allows; templates may be sent any time.
    if (!latestInbound || now.getTime() - latestInbound.createdAt.getTime() > WINDOW_MS) {
      throw await outsideWindow(tx, appId, payload.to);
    }
    if (payload.interactive.type === 'flow') {
      flowToken = flowTokenOf(payload as FlowMessage);
    } else {
      const matched = await matchProducts(tx, appId, payload as ProductListMessage);
      stored = matched;
      productItemCount = countProductItems(matched);
    }
  }

  const id = randomUUID();
  const messageType = kind === 'template' ? 'template' : 'interactive';
  await tx.insert(messages).values({
    appId,
    id,
    source: API_SYSTEM,
    destination: CHANNEL,
    providerFrom: latestInbound?.providerTo ?? null,
    providerTo: to,
    channel: CHANNEL,
    direction: 'outbound',
    messageType,
    userPhone: to,
    conversationKey: conversationKey(to),
    providerMessageId: '',
    status: 'queued',
    createdAt: now,
  });
  // The unique (app_id, flow_token) index refuses a reused token here, before the provider sees it.
  await tx.insert(sendDetails).values({ appId, messageId: id, kind, flowToken, templateId, payload: stored, createdAt: now });

  const { providerMessageId } = await sendProviderOf(ctx.runtime).send({ appId, messageId: id, to, kind, payload: stored });
  progress.providerAccepted = true;
  if (ctx.idempotency) ctx.idempotency.reachedOutside = true;
  await tx.update(messages).set({ providerMessageId }).where(and(eq(messages.appId, appId), eq(messages.id, id)));
  await tx.update(sendDetails).set({ providerMessageId }).where(and(eq(sendDetails.appId, appId), eq(sendDetails.messageId, id)));

  return {
    id,
    status: 'queued',
    to: payload.to,
    kind,
    messageType,
    providerMessageId,
    flowToken,
    templateName,
    productItemCount,
    createdAt: now.toISOString(),
  };
}

/**
 * The user's newest inbound message opens the window. The business number (provider_from of our
 * sends) is the newest one an inbound message of the user named: `to` is optional on inbound
 * events, and a message without it (stored with provider_to null) must not forget the number.
 */
async function lastInbound(tx: Tx, appId: string, phone: string): Promise<{ createdAt: Date; providerTo: string | null } | undefined> {
  const fromUser = and(eq(messages.appId, appId), eq(messages.userPhone, phone), eq(messages.direction, 'inbound'));
  const [newest] = await tx.select({ createdAt: messages.createdAt }).from(messages).where(fromUser).orderBy(desc(messages.createdAt)).limit(1);
  if (!newest) return undefined;
  const [named] = await tx
    .select({ providerTo: messages.providerTo })
    .from(messages)
    .where(and(fromUser, isNotNull(messages.providerTo)))
    .orderBy(desc(messages.createdAt))
    .limit(1);
  return { createdAt: newest.createdAt, providerTo: named?.providerTo ?? null };
}

/** 422 outside_service_window, pointing to the app's approved template with a Flow button if it has one. */
async function outsideWindow(tx: Tx, appId: string, to: string): Promise<AppError> {
  const [template] = await tx
    .select({ name: templates.name, language: templates.language })
    .from(templates)
    .where(and(eq(templates.appId, appId), eq(templates.status, 'APPROVED'), sql`${templates.buttons} @> '[{"type": "FLOW"}]'::jsonb`))
    .orderBy(templates.name)
    .limit(1);
  const suggestion = template
    ? ` such as "${template.name}" (${template.language})`
    : '; this app has no approved template with a Flow button yet';
  return new AppError(
    'outside_service_window',
    `${to} has not written in the last 24 hours, so the customer service window is closed. Send an approved template with a Flow button instead ({"type": "template"})${suggestion}.`,
  );
}

// ---------------------------------------------------------------------------------------------
// Inbound events

/** What an inbound event is: a user's message or a status update of a sent one. */
export const inboundEventKinds = ['message', 'status'] as const;

export interface InboundResult {
  event: (typeof inboundEventKinds)[number];
  /** False for a redelivered message, or a status update that did not move the message. */
  applied: boolean;
  message: MessageRow;
  /** For a Flow reply: the send it answers. */
  linkedMessageId: string | null;
}

export function ingestInboundEvent(ctx: RequestContext, appId: string, event: InboundEvent): Promise<InboundResult> {
  return writeTransaction(ctx, (tx) => {
    const now = ctx.runtime.clock.now();
    const actor = actorOf(ctx);
    return event.type === 'message' ? ingestMessage(tx, appId, event, now, actor) : ingestStatus(tx, appId, event, now, actor);
  });
}

/** A stable message id per provider id: the provider's redelivery hits the primary key. */
const inboundMessageId = (providerId: string) => {
  const h = createHash('sha256').update(`inbound:${providerId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** A message as the REST API shows it (GET analytics/{appId}/messages/{id}), snake_case: the event log's resource. */
export const messageRecord = (m: MessageRow) => ({
  id: m.id,
  source: m.source,
  destination: m.destination,
  provider_from: m.providerFrom,
  provider_to: m.providerTo,
  channel: m.channel,
  direction: m.direction,
  message_type: m.messageType,
  user_phone: m.userPhone,
  conversation_key: m.conversationKey,
  provider_message_id: m.providerMessageId,
  status: m.status,
  sent_at: m.sentAt?.toISOString() ?? null,
  delivered_at: m.deliveredAt?.toISOString() ?? null,
  read_at: m.readAt?.toISOString() ?? null,
  failed_at: m.failedAt?.toISOString() ?? null,
  error_message: m.errorMessage,
  created_at: m.createdAt.toISOString(),
});

async function ingestMessage(tx: Tx, appId: string, event: InboundMessageEvent, now: Date, actor: Actor): Promise<InboundResult> {
  const from = digits(event.from);
  const at = event.timestamp ?? now;
  const id = inboundMessageId(event.id);

  // A Flow reply is linked to the send of its flow_token (sent to this same number).
  let send: SendDetailsRow | undefined;
  if (event.flow_reply) {
    [send] = await tx
      .select()
      .from(sendDetails)
      .where(and(eq(sendDetails.appId, appId), eq(sendDetails.flowToken, event.flow_reply.flow_token)))
      .for('update');
    if (send) {
      const [sent] = await tx.select({ userPhone: messages.userPhone }).from(messages).where(and(eq(messages.appId, appId), eq(messages.id, send.messageId)));
      if (sent?.userPhone !== from) send = undefined;
    }
  }

  const inserted = await tx
    .insert(messages)
    .values({
      appId,
      id,
      source: CHANNEL,
      destination: API_SYSTEM,
      providerFrom: from,
      providerTo: event.to ? digits(event.to) : null,
      channel: CHANNEL,
      direction: 'inbound',
      messageType: event.message_type ?? (event.flow_reply ? 'interactive' : 'text'),
      userPhone: from,
      conversationKey: conversationKey(from),
      providerMessageId: event.id,
      // flow_handled (answered by a flow), received (stored, not forwarded to an agent).
      status: send ? 'flow_handled' : 'received',
      sentAt: at,
      createdAt: at,
    })
    .onConflictDoNothing({ target: [messages.appId, messages.id] })
    .returning();
  const fresh = inserted[0];
  if (!fresh) {
    const [existing] = await tx.select().from(messages).where(and(eq(messages.appId, appId), eq(messages.id, id)));
    const [linked] = await tx
      .select({ messageId: sendDetails.messageId })
      .from(sendDetails)
      .where(and(eq(sendDetails.appId, appId), eq(sendDetails.replyMessageId, id)))
      .limit(1);
    return { event: 'message', applied: false, message: existing!, linkedMessageId: linked?.messageId ?? null };
  }
  const events: NewAppEvent[] = [{ type: 'message.received', resource: messageRecord(fresh) }];
  if (send && send.replyMessageId === null) {
    await tx
      .update(sendDetails)
      .set({ replyMessageId: id, replyResponse: event.flow_reply!.response, repliedAt: at })
      .where(and(eq(sendDetails.appId, appId), eq(sendDetails.messageId, send.messageId)));
    // The Flow the send opened is answered: the send with its reply.
    events.push({
      type: 'flow.completed',
      resource: { message_id: send.messageId, flow_token: send.flowToken, reply_message_id: id, response: event.flow_reply!.response, replied_at: at.toISOString() },
    });
  }
  await recordEvents(tx, appId, actor, events, now);
  return { event: 'message', applied: true, message: fresh, linkedMessageId: send?.messageId ?? null };
}

/**
 * The outbound message a status update names, locked: concurrent updates of one message apply
 * one after the other. Served by the partial index messages_app_outbound_provider_message_idx
 * (test/sends/inbound.test.ts checks the plan).
 */
export function outboundMessageByProviderId(q: Queryable, appId: string, providerMessageId: string) {
  return q
    .select()
    .from(messages)
    .where(and(eq(messages.appId, appId), eq(messages.providerMessageId, providerMessageId), eq(messages.direction, 'outbound')))
    // The service's own send first: an imported copy of it (same provider id) must not take its receipts.
    .orderBy(
      desc(sql`exists (select 1 from ${sendDetails} where ${sendDetails.appId} = ${messages.appId} and ${sendDetails.messageId} = ${messages.id})`),
      desc(messages.createdAt),
      desc(messages.id),
    )
    .limit(1)
    .for('update');
}

/**
 * A status update names the message by the provider's id. Any outbound message of the app can
 * carry it, not only the service's own sends: messages imported with their provider_message_id
 * (connector history, campaigns sent elsewhere) get their delivery receipts too. Inbound messages
 * are not candidates (their statuses are received and flow_handled, not a delivery funnel). A
 * message the service sent itself wins over imported ones with the same id; among imported ones
 * only, the newest is the one updated.
 */
async function ingestStatus(tx: Tx, appId: string, event: StatusUpdateEvent, now: Date, actor: Actor): Promise<InboundResult> {
  const [row] = await outboundMessageByProviderId(tx, appId, event.provider_message_id);
  if (!row) throw notFound(`Outbound message with provider_message_id ${event.provider_message_id}`);
  const { state, moved } = applyStatusUpdate(row, {
    status: event.status,
    at: event.timestamp ?? now,
    errorMessage: event.error?.message ?? null,
  });
  const [updated] = await tx
    .update(messages)
    .set({
      status: state.status,
      sentAt: state.sentAt,
      deliveredAt: state.deliveredAt,
      readAt: state.readAt,
      failedAt: state.failedAt,
      errorMessage: state.errorMessage,
    })
    .where(and(eq(messages.appId, appId), eq(messages.id, row.id)))
    .returning();
  // A receipt that does not move the message (a repeat, an older status) changes nothing to announce.
  if (moved) await recordEvents(tx, appId, actor, [{ type: 'message.status_updated', resource: messageRecord(updated!) }], now);
  return { event: 'status', applied: moved, message: updated!, linkedMessageId: null };
}

// ---------------------------------------------------------------------------------------------
// Reads

export interface SentMessageDetails extends SendDetailsRow {
  message: MessageRow;
}

export async function getSentMessage(ctx: RequestContext, appId: string, messageId: string): Promise<SentMessageDetails> {
  const [row] = await sentMessagesWhere(ctx, and(eq(sendDetails.appId, appId), eq(sendDetails.messageId, messageId))!);
  if (!row) throw notFound('Sent message');
  return row;
}

/** Sent messages matching `where` (on send_details), each with its message: one query. */
export async function sentMessagesWhere(ctx: RequestContext, where: SQL): Promise<SentMessageDetails[]> {
  const rows = await ctx.runtime.database.db
    .select({ details: sendDetails, message: messages })
    .from(sendDetails)
    .innerJoin(messages, and(eq(messages.appId, sendDetails.appId), eq(messages.id, sendDetails.messageId)))
    .where(where);
  return rows.map((row) => ({ ...row.details, message: row.message }));
}

/** A unique violation of `constraint`, through drizzle's wrapping (postgres.js and PGlite alike). */
function isUniqueViolation(error: unknown, constraint: string): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const e = current as { code?: string; constraint_name?: string; constraint?: string; message?: string; cause?: unknown };
    if (e.code === '23505') return (e.constraint_name ?? e.constraint ?? e.message ?? '').includes(constraint);
    current = e.cause;
  }
  return false;
}
