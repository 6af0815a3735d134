import { timestamp } from 'drizzle-orm/pg-core';

/**
 * An instant that orders a keyset list (created_at of messages, campaigns, templates, video calls
 * and webhook deliveries; scheduled_at of scheduled calls): timestamptz(3), milliseconds, the
 * precision of a JavaScript Date and of every instant the API shows. A cursor names the last
 * row's instant as a Date, so a row stored with microseconds (written by psql or another tool
 * beside the service) would sort between two cursor positions and a page walk would skip it.
 * With the typmod PostgreSQL rounds every writer's value to the millisecond as it stores it.
 */
export const keysetInstant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date', precision: 3 });
