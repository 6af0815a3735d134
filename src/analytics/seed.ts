import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { eq, sql, type SQL } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Db } from '../db/client.js';
import { systemClock } from '../time/clock.js';
import { funnel } from './funnel.js';
import { campaigns, messages, templates } from './tables.js';

type MessageInsert = typeof messages.$inferInsert;

/** A small seeded PRNG (mulberry32): the same seed gives the same data set. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return { next, pick, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

const TAGS = ['black friday', 'spring sale', 'onboarding', 'retention', 'été 2026', 'vip', 'reactivation', 'newsletter'];
const CHANNELS = ['whatsapp', 'whatsapp', 'whatsapp', 'sms', 'instagram'];
const COST = { whatsapp: 0.0147, sms: 0.0395, instagram: 0 } as Record<string, number>;
const DAY = 86_400_000;
const BATCH = 5_000;

export interface SeedOptions {
  db: Db;
  /**
   * `db` is PostgreSQL through postgres.js: messages then go in with COPY (text format), one
   * stream instead of a statement per batch. Otherwise (PGlite) one INSERT per batch.
   */
  copy?: boolean;
  appId: string;
  messages: number;
  seed?: number;
  now?: Date;
  progress?: (done: number) => void;
  /**
   * With COPY: drop the messages table's secondary indexes before the load and build them again
   * after it, in the seed's transaction. Building an index over sorted rows is many times faster
   * than inserting each row into it, but the table is locked against reads until the commit.
   * 'auto' (the default) does it only when the table is empty, so nobody's reads wait.
   */
  rebuildIndexes?: boolean | 'auto';
  /** Steps other than writing messages (the rollups, index builds), as they start. */
  step?: (message: string) => void;
}

/**
 * Synthetic, internally consistent analytics data over the last 90 days: campaigns with tags,
 * templates, and messages whose statuses follow the delivery funnel, linked to campaigns, with
 * per-channel costs and a contact pool that repeats phones.
 */
export async function seedAnalytics(options: SeedOptions) {
  const rng = random(options.seed ?? 42);
  const now = options.now ?? systemClock.now();
  const { appId } = options;
  const run = randomUUID().slice(0, 8);
  const campaignCount = Math.max(10, Math.ceil(options.messages / 5000));
  const campaignRows = Array.from({ length: campaignCount }, (_, i) => ({
    appId,
    id: randomUUID(),
    name: `${rng.pick(['Spring', 'Summer', 'Winback', 'Welcome', 'Flash', 'Loyalty'])} ${rng.pick(['promo', 'series', 'blast', 'journey'])} #${i + 1}`,
    status: rng.pick(['active', 'completed', 'completed', 'paused', 'failed', 'scheduled', 'running']),
    totalContacts: 0,
    sentCount: 0,
    tags: [...new Set([rng.pick(TAGS), rng.pick(TAGS)])].slice(0, rng.int(1, 2)),
    createdAt: new Date(now.getTime() - rng.int(1, 90) * DAY),
  }));
  const contacts = Array.from({ length: Math.max(50, Math.ceil(options.messages / 8)) }, () => `44${rng.int(7000000000, 7999999999)}`);
  const sentPerCampaign = new Map<string, Set<string>>();
  let done = 0;
  /** Every message in batches of BATCH rows, progress reported as each batch is handed on. */
  function* batches(): Generator<MessageInsert[]> {
    while (done < options.messages) {
      const rows: MessageInsert[] = [];
      for (let i = 0; i < BATCH && done + i < options.messages; i++) rows.push(messageRow(done + i));
      yield rows;
      done += rows.length;
      options.progress?.(done);
    }
    // The triggers run when the statement ends: at millions of messages a pause worth naming.
    options.step?.('updating the rollups');
  }
  // Messages, campaigns and templates in one transaction: an interrupted seed leaves nothing.
  // Every message goes into `messages` in ONE statement, so the rollup triggers fire once and
  // write each rollup row once: a statement per batch rewrote every touched rollup row per batch,
  // and inside one transaction nothing reclaims those versions, which metric reads then scan.
  const write = async (db: Db, copy?: (rows: Iterable<MessageInsert[]>) => Promise<void>) => {
    if (copy) await copy(batches());
    else await insertStaged(db, batches());
    for (const c of campaignRows) {
      const phones = sentPerCampaign.get(c.id);
      c.totalContacts = Math.round((phones?.size ?? 0) * 1.1);
      c.sentCount = phones?.size ?? 0;
    }
    await db.insert(campaigns).values(campaignRows);
    // Seeding an app again adds messages and campaigns, not a second template of the same name and
    // language (a template send names one by both).
    const existing = await db.select({ name: templates.name, language: templates.language }).from(templates).where(eq(templates.appId, appId));
    const known = new Set(existing.map((t) => `${t.name}\u0000${t.language}`));
    const fresh = templateRows(appId, now).filter((t) => !known.has(`${t.name}\u0000${t.language}`));
    if (fresh.length > 0) await db.insert(templates).values(fresh);
    return fresh.length;
  };
  const newTemplates = await options.db.transaction(async (tx) => {
    if (!options.copy) return write(tx as unknown as Db);
    const client = postgresTransaction(tx);
    const load = () => write(tx as unknown as Db, (rows) => copyMessages(client, rows));
    const rebuild = options.rebuildIndexes ?? 'auto';
    if (rebuild === false || (rebuild === 'auto' && (await client`select exists (select 1 from messages) as found`)[0]!.found)) return load();
    return withoutSecondaryIndexes(client, load, options.step);
  });
  // Fresh planner statistics: PGlite has no autovacuum, and PostgreSQL's comes later.
  await options.db.execute(sql`analyze messages, campaigns, templates, message_rollups, campaign_rollups, contact_ranges, contact_rollups`);
  return { messages: done, campaigns: campaignRows.length, templates: newTemplates };

  function messageRow(n: number): MessageInsert {
    const outbound = rng.next() < 0.7;
    const channel = rng.pick(CHANNELS);
    const phone = rng.pick(contacts);
    const campaign = outbound && rng.next() < 0.6 ? rng.pick(campaignRows) : undefined;
    const earliest = campaign ? campaign.createdAt.getTime() : now.getTime() - 90 * DAY;
    const createdAt = new Date(earliest + Math.floor(rng.next() * (now.getTime() - earliest)));
    const roll = rng.next();
    const status = outbound
      ? roll < 0.05
        ? 'failed'
        : roll < 0.2
          ? 'sent'
          : roll < 0.5
            ? 'delivered'
            : 'read'
      : roll < 0.15
        ? 'flow_handled'
        : 'received';
    if (campaign) sentPerCampaign.set(campaign.id, (sentPerCampaign.get(campaign.id) ?? new Set()).add(phone));
    const at = (minutes: number) => new Date(createdAt.getTime() + minutes * 60_000);
    const reached = (set: readonly string[]) => set.includes(status);
    return {
      appId,
      id: `seed-${run}-${n}`,
      source: outbound ? 'switchboard' : channel,
      destination: outbound ? channel : 'switchboard',
      providerFrom: outbound ? '447700900000' : phone,
      providerTo: outbound ? phone : '447700900000',
      channel,
      direction: outbound ? 'outbound' : 'inbound',
      messageType: outbound ? rng.pick(['template', 'template', 'interactive', 'text']) : rng.pick(['text', 'text', 'image', 'interactive']),
      userPhone: phone,
      conversationKey: `conv-${phone}-${Math.floor(createdAt.getTime() / DAY)}`,
      providerMessageId: `wamid.${run}${n.toString(36)}`,
      status,
      sentAt: outbound && status !== 'failed' ? at(0) : null,
      failedAt: status === 'failed' ? at(1) : null,
      deliveredAt: outbound && reached(funnel.delivered) ? at(1) : null,
      readAt: outbound && reached(funnel.read) ? at(rng.int(2, 600)) : null,
      errorMessage: status === 'failed' ? rng.pick(['Recipient not on WhatsApp', 'Rate limit hit', 'Message undeliverable']) : null,
      campaignId: campaign?.id ?? null,
      cost: outbound && status !== 'failed' ? (COST[channel] ?? 0) : 0,
      createdAt,
    };
  }
}

const COPY_COLUMNS = [
  'app_id', 'id', 'source', 'destination', 'provider_from', 'provider_to', 'channel', 'direction', 'message_type', 'user_phone',
  'conversation_key', 'provider_message_id', 'status', 'sent_at', 'failed_at', 'delivered_at', 'read_at', 'error_message',
  'campaign_id', 'cost', 'created_at',
] as const;

/** A value in COPY's text format: \\N for null; backslash, tab, newline and carriage return escaped. */
export function copyField(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  if (value instanceof Date) return value.toISOString();
  return String(value).replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

function copyLine(r: MessageInsert): string {
  return (
    [
      r.appId, r.id, r.source, r.destination, r.providerFrom, r.providerTo, r.channel, r.direction, r.messageType, r.userPhone,
      r.conversationKey, r.providerMessageId, r.status, r.sentAt, r.failedAt, r.deliveredAt, r.readAt, r.errorMessage,
      r.campaignId, r.cost, r.createdAt,
    ]
      .map(copyField)
      .join('\t') + '\n'
  );
}

/** postgres.js's own transaction under a drizzle transaction on postgres.js (drizzle-orm's PostgresJsTransaction keeps it as session.client). */
function postgresTransaction(tx: unknown): postgres.TransactionSql {
  const client = (tx as { session?: { client?: postgres.TransactionSql } }).session?.client;
  if (typeof client?.unsafe !== 'function') throw new Error('COPY needs a drizzle transaction on postgres.js');
  return client;
}

/**
 * Runs `load` with the messages table's secondary indexes dropped, then builds each again from its
 * own definition. Indexes that back a constraint (the primary key) stay. All of it is in the
 * caller's transaction: a failure leaves the indexes as they were.
 */
async function withoutSecondaryIndexes<T>(tx: postgres.TransactionSql, load: () => Promise<T>, step?: (message: string) => void): Promise<T> {
  const indexes = await tx<{ name: string; definition: string }[]>`
    select x.indexrelid::regclass::text as name, pg_get_indexdef(x.indexrelid) as definition
    from pg_index x
    where x.indrelid = 'messages'::regclass and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)
    order by x.indexrelid`;
  for (const { name } of indexes) await tx.unsafe(`drop index ${name}`);
  const result = await load();
  // Sorting in memory rather than in temporary files; the server's own cap on parallel workers applies.
  await tx.unsafe(`set local maintenance_work_mem = '1GB'`);
  for (const [i, { name, definition }] of indexes.entries()) {
    step?.(`building index ${i + 1} of ${indexes.length}: ${name}`);
    await tx.unsafe(definition);
  }
  return result;
}

/** One COPY statement of all the batches, streamed with backpressure; it fires the rollup triggers once. */
async function copyMessages(tx: postgres.TransactionSql, rows: Iterable<MessageInsert[]>) {
  const stream = await tx.unsafe(`copy messages (${COPY_COLUMNS.join(', ')}) from stdin`).writable();
  await pipeline(
    Readable.from((function* () {
      for (const batch of rows) yield batch.map(copyLine).join('');
    })()),
    stream,
  );
}

/**
 * Without COPY (PGlite): the batches go into a temporary table with neither triggers nor indexes,
 * then into `messages` with one INSERT, which fires the rollup triggers once.
 */
async function insertStaged(db: Db, batches: Iterable<MessageInsert[]>) {
  await db.execute(sql`create temporary table seed_messages (like messages)`);
  for (const rows of batches) await insertJson(db, sql`seed_messages`, rows);
  await db.execute(sql`insert into ${messages} select * from seed_messages`);
  await db.execute(sql`drop table seed_messages`);
}

/**
 * One JSON parameter per batch instead of ~20 bind parameters a row: binding dominated the time
 * of a multi-row INSERT.
 */
async function insertJson(db: Db, table: SQL, rows: MessageInsert[]) {
  const json = JSON.stringify(
    rows.map((r) => ({
      app_id: r.appId,
      id: r.id,
      source: r.source,
      destination: r.destination,
      provider_from: r.providerFrom,
      provider_to: r.providerTo,
      channel: r.channel,
      direction: r.direction,
      message_type: r.messageType,
      user_phone: r.userPhone,
      conversation_key: r.conversationKey,
      provider_message_id: r.providerMessageId,
      status: r.status,
      sent_at: r.sentAt,
      failed_at: r.failedAt,
      delivered_at: r.deliveredAt,
      read_at: r.readAt,
      error_message: r.errorMessage,
      campaign_id: r.campaignId,
      cost: r.cost,
      created_at: r.createdAt,
    })),
  );
  await db.execute(sql`insert into ${table} select * from json_populate_recordset(null::messages, ${json}::json)`);
}

function templateRows(appId: string, now: Date) {
  const base = {
    appId,
    status: 'APPROVED',
    headerType: 'TEXT',
    providerStatus: 'APPROVED',
    providerRejectionReason: null,
    providerQuality: 'GREEN',
    createdAt: new Date(now.getTime() - 60 * DAY),
    updatedAt: new Date(now.getTime() - 30 * DAY),
  };
  return [
    {
      ...base,
      id: randomUUID(),
      name: 'order_shipped',
      category: 'UTILITY',
      language: 'en_US',
      headerText: 'Order {{1}}',
      bodyText: 'Hi {{1}}, order {{2}} is on its way.',
      bodyVariables: [
        { index: 1, type: 'text', example: 'Ana' },
        { index: 2, type: 'text', example: 'A-1042' },
      ],
      footerText: 'Reply STOP to opt out',
      buttons: [{ type: 'URL', text: 'Track', url: 'https://example.com/t/{{1}}' }],
      providerTemplateId: `pt-${randomUUID().slice(0, 8)}`,
    },
    {
      ...base,
      id: randomUUID(),
      name: 'spring_offer',
      category: 'MARKETING',
      language: 'en_US',
      headerText: 'Spring offer',
      bodyText: '{{first_name}}, 20% off until {{end_date}}.',
      bodyVariables: [
        { index: 1, name: 'first_name', type: 'text', example: 'Ana' },
        { index: 2, name: 'end_date', type: 'text', example: '31 March' },
      ],
      footerText: 'Terms apply',
      buttons: [
        { type: 'QUICK_REPLY', text: 'Yes please' },
        { type: 'QUICK_REPLY', text: 'Not now' },
      ],
      providerTemplateId: `pt-${randomUUID().slice(0, 8)}`,
    },
    {
      ...base,
      id: randomUUID(),
      name: 'book_a_call',
      category: 'UTILITY',
      language: 'pt_BR',
      headerText: 'Agende',
      bodyText: 'Olá {{1}}, escolha um horário.',
      bodyVariables: [{ index: 1, type: 'text', example: 'Ana' }],
      footerText: 'Switchboard',
      buttons: [{ type: 'FLOW', text: 'Escolher horário' }],
      providerTemplateId: `pt-${randomUUID().slice(0, 8)}`,
    },
  ];
}
