import { EVENT_PATTERN_MAX_LENGTH, eventTypes, isEventPattern, matchesEventType, typesMatching } from '../events/types.js';

// What a webhook subscription lists, and which deliveries that selects. A subscription lists
// patterns of the event catalogue (`message.received`, `scheduled_call.*`, `*`) and, kept as they
// were, the scheduled-call types the service sent before the catalogue (`scheduled.cancelled`…).

/** Timeline event types and the scheduled-call webhook type each is announced as. */
export const webhookTypeOf = {
  created: 'scheduled.created',
  rescheduled: 'scheduled.rescheduled',
  assigned: 'scheduled.assigned',
  updated: 'scheduled.updated',
  cancelled: 'scheduled.cancelled',
  completed: 'scheduled.completed',
  no_show: 'scheduled.no_show',
} as const satisfies Record<string, string>;

/**
 * The scheduled-call types sent before the catalogue. Selected only by their exact name: `*`
 * means every catalogue type, and a subscriber to it would otherwise get each scheduled-call
 * change twice (`scheduled.created` and `scheduled_call.created`).
 */
export const legacyWebhookTypes = [...Object.values(webhookTypeOf), 'scheduled.reminder'] as const;
export type LegacyWebhookType = (typeof legacyWebhookTypes)[number];

/** A test delivery: sent to the one endpoint it was asked for, never selected by a pattern. */
export const PING_TYPE = 'webhook.ping';

/** Every type a delivery can carry. */
export const deliveryTypes = [...legacyWebhookTypes, ...eventTypes, PING_TYPE] as const;
export type DeliveryType = (typeof deliveryTypes)[number];

/** Entries a subscription may list (before duplicates are dropped). */
export const MAX_SUBSCRIPTION_PATTERNS = 64;
/** Longest entry: the longest type name, so nothing oversized is ever stored. */
export const SUBSCRIPTION_PATTERN_MAX_LENGTH = Math.max(EVENT_PATTERN_MAX_LENGTH, ...legacyWebhookTypes.map((t) => t.length));

const legacy = new Set<string>(legacyWebhookTypes);

/** Whether a subscription may list the entry: a legacy type, or a pattern naming catalogue types. */
export const isSubscriptionPattern = (pattern: string): boolean => legacy.has(pattern) || isEventPattern(pattern);

/** Whether a subscription listing `patterns` receives deliveries of `type`. */
export function receives(patterns: readonly string[], type: string): boolean {
  if (legacy.has(type)) return patterns.includes(type);
  if (type === PING_TYPE) return false;
  return matchesEventType(patterns, type);
}

/**
 * The stored entries that select `type`: the outbox finds subscriptions whose list overlaps
 * these, in the one query it runs per write.
 */
export function patternsSelecting(type: string): string[] {
  if (legacy.has(type)) return [type];
  const dot = type.indexOf('.');
  if (dot <= 0 || type === PING_TYPE) return [];
  return [type, `${type.slice(0, dot)}.*`, '*'];
}

/** The types a subscription receives: its legacy types, then the catalogue types its patterns select. */
export const typesReceived = (patterns: readonly string[]): DeliveryType[] => [
  ...legacyWebhookTypes.filter((t) => patterns.includes(t)),
  ...typesMatching(patterns.filter((p) => !legacy.has(p))),
];
