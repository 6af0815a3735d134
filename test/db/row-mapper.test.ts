import { desc, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { campaigns, messages } from '../../src/analytics/tables.js';
import { oauthClients, revokedTokens } from '../../src/auth/tables.js';
import { compileRowMapper } from '../../src/db/row-mapper.js';
import { useServer } from '../helpers/use-server.js';

// The compiled row mapper (src/db/row-mapper.ts) must give exactly what drizzle's own mapping
// gives: the same query, prepared twice, once with it, on real rows with nulls, numerics and
// timestamps with microseconds.
const { server } = useServer();
let appId: string;
beforeAll(async () => {
  appId = (await server.tenant()).appId;
  const base = {
    appId,
    source: 'whatsapp',
    destination: '+15550000001',
    providerFrom: '+15550000001',
    providerTo: '+15550000002',
    channel: 'whatsapp',
    direction: 'outbound',
    messageType: 'text',
    userPhone: '+15550000002',
    conversationKey: 'conv-1',
    status: 'delivered',
  };
  await server.runtime.database.db.insert(messages).values([
    { ...base, id: 'm1', providerMessageId: 'p1', createdAt: new Date('2026-03-08T09:59:59.999Z'), cost: 0.123456 },
    {
      ...base,
      id: 'm2',
      providerMessageId: 'p2',
      status: 'failed',
      createdAt: new Date('2026-03-08T10:00:00.000Z'),
      sentAt: new Date('2026-03-08T10:00:01.5Z'),
      failedAt: new Date('2026-03-08T10:00:02.25Z'),
      errorMessage: 'undeliverable',
    },
  ]);
  // A microsecond timestamp, which only SQL can write.
  await server.runtime.database.db.execute(sql`update messages set read_at = '2026-03-08 10:00:03.123456+00' where app_id = ${appId} and id = 'm2'`);
});

describe('compiled row mapper', () => {
  it('maps a flat select exactly as drizzle does', async () => {
    const { db } = server.runtime.database;
    const build = (name: string) => db.select().from(messages).where(eq(messages.appId, appId)).orderBy(desc(messages.createdAt)).prepare(name);
    const plain = build('row_mapper_plain');
    const compiled = compileRowMapper(build('row_mapper_compiled'));
    expect((compiled as unknown as { customResultMapper?: unknown }).customResultMapper).toBeTypeOf('function');
    const expected = await plain.execute();
    const actual = await compiled.execute();
    expect(expected).toHaveLength(2);
    expect(actual).toEqual(expected);
    expect(Object.keys(actual[0]!)).toEqual(Object.keys(expected[0]!));
    expect(actual[0]!.readAt).toBeInstanceOf(Date);
    expect(actual[1]!.sentAt).toBeNull();
    expect(actual[1]!.cost).toBe(0.123456);
  });

  it('maps a partial select with renamed fields', async () => {
    const { db } = server.runtime.database;
    const build = (name: string) =>
      db.select({ at: messages.createdAt, key: messages.id, price: messages.cost }).from(messages).where(eq(messages.appId, appId)).prepare(name);
    const compiled = compileRowMapper(build('row_mapper_partial_compiled'));
    expect((compiled as unknown as { customResultMapper?: unknown }).customResultMapper).toBeTypeOf('function');
    expect(await compiled.execute()).toEqual(await build('row_mapper_partial_plain').execute());
  });

  it('leaves joins and SQL fields to drizzle', async () => {
    const { db } = server.runtime.database;
    const joined = db.select().from(oauthClients).leftJoin(revokedTokens, eq(revokedTokens.clientId, oauthClients.id)).prepare('row_mapper_join');
    expect((compileRowMapper(joined) as unknown as { customResultMapper?: unknown }).customResultMapper).toBeUndefined();
    const computed = db.select({ n: sql<number>`count(*)` }).from(campaigns).prepare('row_mapper_sql');
    expect((compileRowMapper(computed) as unknown as { customResultMapper?: unknown }).customResultMapper).toBeUndefined();
  });
});
