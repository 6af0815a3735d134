// The catalogue of event types an app's event log records, and the patterns that select them.
// Pull (the events list), push (webhook subscriptions) and the events subscription all choose
// types with the same patterns, so one matcher serves the three.

/** Every type the event log records, grouped by the resource the event is about. */
export const eventTypes = [
  'message.received',
  'message.status_updated',
  'message.send_failed',
  'flow.completed',
  'scheduled_call.created',
  'scheduled_call.rescheduled',
  'scheduled_call.assigned',
  'scheduled_call.updated',
  'scheduled_call.cancelled',
  'scheduled_call.reminder',
  'scheduled_call.completed',
  'scheduled_call.no_show',
  'video_call.created',
  'video_call.participant_joined',
  'video_call.participant_left',
  'video_call.ended',
  'recording.updated',
  'webhook_endpoint.disabled',
] as const;
export type EventType = (typeof eventTypes)[number];

const known = new Set<string>(eventTypes);
const groups = new Set(eventTypes.map((t) => t.slice(0, t.indexOf('.'))));

/** Every pattern `isEventPattern` accepts, as a closed list (for schemas and documentation). */
export const eventPatternValues = ['*', ...[...groups].map((g) => `${g}.*`), ...eventTypes] as const;

/** Longest pattern accepted: the longest type name, so a pattern is never stored oversized. */
export const EVENT_PATTERN_MAX_LENGTH = Math.max(...eventTypes.map((t) => t.length));

/**
 * A pattern is a type (`message.received`), a group with a wildcard (`scheduled_call.*`) or `*`
 * for every type. Patterns naming no type are refused, so a typo cannot subscribe to nothing.
 */
export function isEventPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return groups.has(pattern.slice(0, -2));
  return known.has(pattern);
}

/** Whether any of the patterns selects the type. */
export function matchesEventType(patterns: readonly string[], type: string): boolean {
  for (const pattern of patterns) {
    if (pattern === '*' || pattern === type) return true;
    if (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))) return true;
  }
  return false;
}

/** The types the patterns select, in catalogue order (for SQL `type = any(...)` filters). */
export const typesMatching = (patterns: readonly string[]): EventType[] => eventTypes.filter((t) => matchesEventType(patterns, t));
