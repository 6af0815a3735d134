import { eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { hashSecret, generateClientId, generateSecret, secretHashKey } from '../auth/secrets.js';
import { scopes } from '../auth/scopes.js';
import { oauthClientApps, oauthClients } from '../auth/tables.js';
import type { Db } from '../db/client.js';
import { AppError } from '../errors/app-error.js';
import { parseInput } from '../errors/zod-details.js';
import { ianaTimeZone } from '../validation/time-zone.js';
import { apps } from './tables.js';

export const createAppInput = z.object({
  name: z.string().trim().min(1).max(200),
  timezone: ianaTimeZone.default('UTC'),
  id: z.uuid().optional(),
});

export async function createApp(db: Db, input: z.input<typeof createAppInput>) {
  const parsed = parseInput(createAppInput, input);
  const [row] = await db.insert(apps).values(parsed).returning();
  return row!;
}

export const createClientInput = z.object({
  apps: z.array(z.uuid()).min(1),
  scopes: z.array(z.enum(scopes)).min(1),
  name: z.string().max(200).optional(),
  rate: z
    .object({ minute: z.number().int().positive(), hour: z.number().int().positive(), day: z.number().int().positive() })
    .partial()
    .optional(),
});

/** Registers an OAuth client; the secret is returned once and stored only as a keyed hash. */
export async function createClient(db: Db, input: z.input<typeof createClientInput>) {
  const parsed = parseInput(createClientInput, input);
  const appIds = [...new Set(parsed.apps)];
  const clientId = generateClientId();
  const secret = generateSecret();
  const secretHash = hashSecret(secret, await secretHashKey(db));
  await db.transaction(async (tx) => {
    const found = await tx.select({ id: apps.id }).from(apps).where(inArray(apps.id, appIds));
    const missing = appIds.filter((id) => !found.some((f) => f.id === id));
    if (missing.length > 0) throw new AppError('not_found', `Unknown app ${missing.join(', ')}`);
    await tx.insert(oauthClients).values({
      id: clientId,
      name: parsed.name,
      secretHash,
      scopes: [...new Set(parsed.scopes)],
      rateMinute: parsed.rate?.minute,
      rateHour: parsed.rate?.hour,
      rateDay: parsed.rate?.day,
    });
    await tx.insert(oauthClientApps).values(appIds.map((appId) => ({ clientId, appId })));
  });
  return { client_id: clientId, client_secret: secret, scopes: [...new Set(parsed.scopes)], apps: appIds };
}

/**
 * Client-secret rotation: a new secret, returned once; the old one stops working at once.
 * Tokens already issued stay valid until they expire or are revoked.
 */
export async function rotateClientSecret(db: Db, clientId: string) {
  const secret = generateSecret();
  const secretHash = hashSecret(secret, await secretHashKey(db));
  const updated = await db.update(oauthClients).set({ secretHash }).where(eq(oauthClients.id, clientId)).returning({ id: oauthClients.id });
  if (updated.length === 0) throw new AppError('not_found', `Unknown client ${clientId}`);
  return { client_id: clientId, client_secret: secret };
}
