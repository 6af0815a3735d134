import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { apps } from '../apps/tables.js';

export const oauthClients = pgTable('oauth_clients', {
  id: text('id').primaryKey(),
  name: text('name'),
  // "hmac-sha256$<mac>" under the server key (src/auth/secrets.ts); clients not yet seen since
  // that scheme may still hold the old "scrypt$N$r$p$salt$hash", replaced on their next token.
  secretHash: text('secret_hash').notNull(),
  scopes: text('scopes').array().notNull(),
  // Per-client quotas; null means the configured default (RATE_LIMIT_* in config.ts).
  rateMinute: integer('rate_minute'),
  rateHour: integer('rate_hour'),
  rateDay: integer('rate_day'),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export const oauthClientApps = pgTable(
  'oauth_client_apps',
  {
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.clientId, t.appId] }), index('oauth_client_apps_app_idx').on(t.appId)],
);

// Checked on every authenticated request, so revocation is effective at once on every instance.
export const revokedTokens = pgTable(
  'revoked_tokens',
  {
    jti: text('jti').primaryKey(),
    clientId: text('client_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('revoked_tokens_expires_idx').on(t.expiresAt)],
);

// Asymmetric signing keys shared by every instance; the oldest active key signs.
export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  alg: text('alg').notNull(),
  privateJwk: jsonb('private_jwk').notNull(),
  publicJwk: jsonb('public_jwk').notNull(),
  active: boolean('active').notNull().default(true),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().default(sql`now()`),
});

// Server-wide secrets generated once and shared by every instance (the client-secret HMAC key).
export const serverSecrets = pgTable('server_secrets', {
  name: text('name').primaryKey(),
  secret: text('secret').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

export type OAuthClientRow = typeof oauthClients.$inferSelect;
