import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// Idempotency-Key of every write (idempotency.ts): claimed (in_flight) before the write runs,
// marked applied inside the write's own transaction, completed with the answer to replay. The app
// is '' for a write that names none (token revocation). No foreign key: rows live 24 h at most.
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    appId: text('app_id').notNull(),
    clientId: text('client_id').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    state: text('state').notNull(),
    /** { status, headers, body } of the first answer; null until completed, or when it was too large to keep. */
    response: jsonb('response'),
    claimedAt: ts('claimed_at').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appId, t.clientId, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
    check('idempotency_keys_state', sql`${t.state} in ('in_flight', 'applied', 'completed')`),
  ],
);
