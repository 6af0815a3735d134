import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Tx } from '../db/client.js';
import { excludedSet, rowsOf } from '../db/raw.js';
import type { ImportType } from '../importer/ndjson.js';
import { instantString } from '../time/instant-input.js';
import { directions, messageStatuses } from './filters.js';
import { campaigns, messages, templates } from './tables.js';

// Record fields in the API's snake_case names, plus the import-only extras.
const instant = instantString;
const nullableInstant = instant.nullish().transform((v) => v ?? null);

const messageRecord = z.strictObject({
  id: z.string().min(1).max(200),
  source: z.string(),
  destination: z.string(),
  // Unknown numbers may be null, left out or '' (as older exports have them): stored as null.
  provider_from: z.string().nullish().transform((v) => v || null),
  provider_to: z.string().nullish().transform((v) => v || null),
  channel: z.string(),
  direction: z.enum(directions),
  message_type: z.string(),
  user_phone: z.string().regex(/^\d{4,20}$/, 'must be digits'),
  conversation_key: z.string(),
  provider_message_id: z.string(),
  status: z.enum(messageStatuses),
  sent_at: nullableInstant,
  failed_at: nullableInstant,
  delivered_at: nullableInstant,
  read_at: nullableInstant,
  error_message: z.string().nullish().transform((v) => v ?? null),
  created_at: instant,
  campaign_id: z.uuid().nullish().transform((v) => v ?? null),
  cost: z.number().nonnegative().default(0),
});

const campaignRecord = z.strictObject({
  id: z.uuid(),
  name: z.string().min(1),
  status: z.enum(['active', 'completed', 'paused', 'failed', 'scheduled', 'running']),
  total_contacts: z.number().int().nonnegative(),
  sent_count: z.number().int().nonnegative(),
  created_at: instant,
  tags: z.array(z.string().min(1).max(100)).default([]),
});

const templateRecord = z.strictObject({
  id: z.uuid(),
  app_id: z.uuid().optional(),
  name: z.string().min(1),
  category: z.string(),
  language: z.string(),
  status: z.string(),
  header_type: z.string(),
  header_text: z.string(),
  body_text: z.string(),
  body_variables: z.array(
    z.strictObject({ index: z.number().int().positive(), type: z.string(), example: z.string(), name: z.string().optional() }),
  ),
  footer_text: z.string(),
  buttons: z.array(z.strictObject({ type: z.string(), text: z.string(), url: z.string().optional() })),
  provider_template_id: z.string(),
  provider_status: z.string(),
  provider_rejection_reason: z.string().nullish().transform((v) => v ?? null),
  provider_quality: z.string(),
  created_at: instant,
  updated_at: instant,
});

/** Upsert on (app_id, id): every column but the key takes the imported value. */

export const messageImport: ImportType<typeof messageRecord> = {
  type: 'message',
  schema: messageRecord,
  write: async (tx, appId, records) => {
    await refuseForeignCampaigns(tx, appId, records);
    await tx
      .insert(messages)
      .values(
        records.map((r) => ({
          appId,
          id: r.id,
          source: r.source,
          destination: r.destination,
          providerFrom: r.provider_from,
          providerTo: r.provider_to,
          channel: r.channel,
          direction: r.direction,
          messageType: r.message_type,
          userPhone: r.user_phone,
          conversationKey: r.conversation_key,
          providerMessageId: r.provider_message_id,
          status: r.status,
          sentAt: r.sent_at,
          failedAt: r.failed_at,
          deliveredAt: r.delivered_at,
          readAt: r.read_at,
          errorMessage: r.error_message,
          campaignId: r.campaign_id,
          cost: r.cost,
          createdAt: r.created_at,
        })),
      )
      .onConflictDoUpdate({
        target: [messages.appId, messages.id],
        set: excludedSet(messages, ['source', 'destination', 'providerFrom', 'providerTo', 'channel', 'direction', 'messageType', 'userPhone', 'conversationKey', 'providerMessageId', 'status', 'sentAt', 'failedAt', 'deliveredAt', 'readAt', 'errorMessage', 'campaignId', 'cost', 'createdAt']),
      });
  },
};

/**
 * A message's campaign_id may name a campaign of this app, or one not (yet) imported; never a
 * campaign that exists only in another app: the message would count in that campaign's stats
 * there (tenancy). Refused by the database write, so the importer names the line.
 */
async function refuseForeignCampaigns(tx: Tx, appId: string, records: { campaign_id: string | null }[]): Promise<void> {
  const ids = [...new Set(records.map((r) => r.campaign_id?.toLowerCase()).filter((id): id is string => Boolean(id)))];
  if (ids.length === 0) return;
  const foreign = rowsOf<{ id: string }>(
    await tx.execute(sql`
      select c.id::text as id from ${campaigns} c
      where c.id in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)}) and c.app_id <> ${appId}
        and not exists (select 1 from ${campaigns} own where own.app_id = ${appId} and own.id = c.id)
      limit 1`),
  );
  if (foreign[0]) throw new Error(`campaign_id ${foreign[0].id} is a campaign of another app`);
}

export const campaignImport: ImportType<typeof campaignRecord> = {
  type: 'campaign',
  schema: campaignRecord,
  write: async (tx, appId, records) => {
    await tx
      .insert(campaigns)
      .values(
        records.map((r) => ({
          appId,
          id: r.id,
          name: r.name,
          status: r.status,
          totalContacts: r.total_contacts,
          sentCount: r.sent_count,
          tags: [...new Set(r.tags)],
          createdAt: r.created_at,
        })),
      )
      .onConflictDoUpdate({
        target: [campaigns.appId, campaigns.id],
        set: excludedSet(campaigns, ['name', 'status', 'totalContacts', 'sentCount', 'tags', 'createdAt']),
      });
  },
};

export const templateImport: ImportType<typeof templateRecord> = {
  type: 'template',
  // A record's own app_id is accepted but ignored: the app comes from --app, so a file cannot write into another app.
  schema: templateRecord,
  write: async (tx, appId, records) => {
    await tx
      .insert(templates)
      .values(
        records.map((r) => ({
          appId,
          id: r.id,
          name: r.name,
          category: r.category,
          language: r.language,
          status: r.status,
          headerType: r.header_type,
          headerText: r.header_text,
          bodyText: r.body_text,
          bodyVariables: r.body_variables,
          footerText: r.footer_text,
          buttons: r.buttons,
          providerTemplateId: r.provider_template_id,
          providerStatus: r.provider_status,
          providerRejectionReason: r.provider_rejection_reason,
          providerQuality: r.provider_quality,
          createdAt: r.created_at,
          updatedAt: r.updated_at,
        })),
      )
      .onConflictDoUpdate({
        target: [templates.appId, templates.id],
        set: excludedSet(templates, ['name', 'category', 'language', 'status', 'headerType', 'headerText', 'bodyText', 'bodyVariables', 'footerText', 'buttons', 'providerTemplateId', 'providerStatus', 'providerRejectionReason', 'providerQuality', 'createdAt', 'updatedAt']),
      });
  },
};
