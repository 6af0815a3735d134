import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/raw.js';
import { expectErrorEnvelope } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { agentIdOf, booking, callIdOf, codeOf, futureDay, importedCall, importRecords, tenantSetUp } from './fixtures.js';

// Metadata, answers to booking questions and the guest filters of the list, through REST and
// GraphQL alike.
const { server } = useServer();
const setUp = tenantSetUp(server);

const CALL_FIELDS = 'callId guestEmail guestPhone metadata answers { question answer }';
const answers = [
  { question: 'What would you like to discuss?', answer: 'Pricing for 40 seats' },
  { question: 'Company size', answer: '' },
];

describe('metadata and answers on create, get, list and GraphQL', () => {
  it('are returned as given by every read; none is null', async () => {
    const { tenant, a } = await setUp();
    const metadata = { crm_id: 'AC-1042', score: 7.5, vip: true };
    const created = await a.create(booking(futureDay(3, 10), { metadata, answers }));
    expect(created.status).toBe(201);
    expect(created.body.data.call).toMatchObject({ metadata, answers });
    const id = created.body.data.call.id;
    expect((await a.get(id)).body.data.call).toEqual(created.body.data.call);
    expect((await a.list()).body.data).toEqual([created.body.data.call]);

    const graph = await a.gql(`query($app: UUID!, $id: UUID!) { scheduledCall(appId: $app, id: $id) { ${CALL_FIELDS} } }`, { app: tenant.appId, id });
    expect(graph.body.data.scheduledCall).toMatchObject({ callId: id, metadata, answers });

    // Without them, and with {} and [] (none too): null.
    const bare = await a.create(booking(futureDay(3, 11)));
    expect(bare.body.data.call).toMatchObject({ metadata: null, answers: null });
    const empty = await a.create(booking(futureDay(3, 12), { metadata: {}, answers: [] }));
    expect(empty.body.data.call).toMatchObject({ metadata: null, answers: null });
    const viaGraph = await a.gql(
      `mutation($app: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $app, input: $input) { ${CALL_FIELDS} } }`,
      { app: tenant.appId, input: booking(futureDay(3, 13), { metadata: { source: 'graphql' }, answers: [answers[0]] }) },
    );
    expect(viaGraph.body.data.createScheduledCall).toMatchObject({ metadata: { source: 'graphql' }, answers: [answers[0]] });
  });

  it('PATCH merges metadata (a null value removes its key, null clears), replaces answers, and names them in `updated`', async () => {
    const { tenant, a } = await setUp();
    const id = (await a.create(booking(futureDay(4, 10), { metadata: { a: '1', b: 2 }, answers }))).body.data.call.id;
    expect((await a.patch(id, { metadata: { b: null, c: false } })).status).toBe(200);
    expect((await a.get(id)).body.data.call.metadata).toEqual({ a: '1', c: false });
    // The same pairs again, in another order, and the same answers: nothing changes, no event.
    expect((await a.patch(id, { metadata: { c: false, a: '1' }, answers })).status).toBe(200);
    expect((await a.patch(id, { answers: [{ question: 'Company size', answer: '11-50' }], reason: 'filled in' })).status).toBe(200);
    expect((await a.get(id)).body.data.call.answers).toEqual([{ question: 'Company size', answer: '11-50' }]);
    // Removing the last key leaves none: null.
    expect((await a.patch(id, { metadata: { a: null, c: null } })).status).toBe(200);
    const afterRemoval = (await a.get(id)).body.data;
    expect(afterRemoval.call).toMatchObject({ metadata: null });
    await a.patch(id, { metadata: { z: 1 } });
    expect((await a.patch(id, { metadata: null, answers: null })).status).toBe(200);
    const { call, events } = (await a.get(id)).body.data;
    expect(call).toMatchObject({ metadata: null, answers: null });
    expect(events.filter((e: { event_type: string }) => e.event_type === 'updated').map((e: { payload: unknown }) => e.payload)).toEqual([
      { fields: ['metadata'] },
      { fields: ['answers'], reason: 'filled in' },
      { fields: ['metadata'] },
      { fields: ['metadata'] },
      { fields: ['metadata', 'answers'] },
    ]);
    // GraphQL's update follows the same rules.
    const graph = await a.gql(
      `mutation($app: UUID!, $id: UUID!, $m: JSON) { updateScheduledCall(appId: $app, id: $id, input: { metadata: $m, answers: [{ question: "Q", answer: "A" }] }) { ${CALL_FIELDS} } }`,
      { app: tenant.appId, id, m: { k: 'v' } },
    );
    expect(graph.body.data.updateScheduledCall).toMatchObject({ metadata: { k: 'v' }, answers: [{ question: 'Q', answer: 'A' }] });
  });

  it('an imported call carries them too; {} and [] import as none', async () => {
    const { tenant, a } = await setUp();
    await importRecords(server, tenant.appId, [
      importedCall(1, 1, futureDay(5, 10).toISOString(), 30, { metadata: { legacy_id: 17 }, answers: [{ question: 'Q', answer: 'A' }] }),
      importedCall(2, 1, futureDay(5, 11).toISOString(), 30, { metadata: {}, answers: [] }),
    ]);
    expect((await a.get(callIdOf(1))).body.data.call).toMatchObject({ metadata: { legacy_id: 17 }, answers: [{ question: 'Q', answer: 'A' }] });
    expect((await a.get(callIdOf(2))).body.data.call).toMatchObject({ metadata: null, answers: null });
  });
});

describe('bounds: a clear invalid_request naming the field', () => {
  const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
  const cases: [string, object, string, string][] = [
    ['51 keys', { metadata: tooMany }, 'metadata', 'too_big'],
    ['a key of 41 characters', { metadata: { ['k'.repeat(41)]: 1 } }, `metadata.${'k'.repeat(41)}`, 'invalid_value'],
    ['an empty key', { metadata: { '': 1 } }, 'metadata.', 'invalid_value'],
    // JSON.parse makes `__proto__` an own key, which a plain record would drop without a word.
    ['a __proto__ key', { metadata: JSON.parse('{"__proto__": 1, "ok": 2}') }, 'metadata.__proto__', 'invalid_value'],
    ['a value of 501 characters', { metadata: { note: 'x'.repeat(501) } }, 'metadata.note', 'too_long'],
    ['a nested value', { metadata: { nested: { a: 1 } } }, 'metadata.nested', 'invalid_type'],
    ['a null value on create', { metadata: { gone: null } }, 'metadata.gone', 'invalid_type'],
    ['metadata that is a list', { metadata: [1] }, 'metadata', 'invalid_type'],
    ['31 answers', { answers: Array.from({ length: 31 }, (_, i) => ({ question: `Q${i}`, answer: 'A' })) }, 'answers', 'too_big'],
    ['an empty question', { answers: [{ question: ' ', answer: 'A' }] }, 'answers.0.question', 'too_small'],
    ['an answer of 2001 characters', { answers: [{ question: 'Q', answer: 'x'.repeat(2001) }] }, 'answers.0.answer', 'too_long'],
    ['an unknown key in an answer', { answers: [{ question: 'Q', answer: 'A', extra: 1 }] }, 'answers.0.extra', 'unrecognized'],
  ];
  it.each(cases)('create with %s: 400 on %s, nothing stored', async (_name, extra, field, code) => {
    const { a } = await setUp();
    const res = await a.create(booking(futureDay(6, 10), extra));
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expectErrorEnvelope(res.body, 'invalid_request');
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ field, code }));
    expect((await a.list()).body.data).toEqual([]);
  });

  it('a PATCH whose merge would pass 50 keys is refused on metadata, and the call is unchanged', async () => {
    const { tenant, a } = await setUp();
    const first = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const id = (await a.create(booking(futureDay(7, 10), { metadata: first }))).body.data.call.id;
    const more = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`n${i}`, i]));
    const res = await a.patch(id, { metadata: more });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', details: [{ field: 'metadata', code: 'too_big' }] });
    // Replacing ten keys with eleven is within bounds.
    const swap = { ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, null])), ...more };
    expect((await a.patch(id, { metadata: swap })).status).toBe(200);
    expect(Object.keys((await a.get(id)).body.data.call.metadata)).toHaveLength(41);
    const graph = await a.gql(`mutation($app: UUID!, $id: UUID!, $m: JSON) { updateScheduledCall(appId: $app, id: $id, input: { metadata: $m }) { callId } }`, {
      app: tenant.appId,
      id,
      m: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`x${i}`, i])),
    });
    expect(codeOf(graph)).toBe('invalid_request');
    expect(graph.body.errors![0]!.extensions!.details).toEqual([expect.objectContaining({ field: 'input.metadata', code: 'too_big' })]);
  });

  it('GraphQL reports the same paths under input', async () => {
    const { tenant, a } = await setUp();
    const res = await a.gql(`mutation($app: UUID!, $input: CreateScheduledCallInput!) { createScheduledCall(appId: $app, input: $input) { callId } }`, {
      app: tenant.appId,
      input: booking(futureDay(6, 12), { metadata: { note: 'x'.repeat(501) }, answers: [{ question: '', answer: 'A' }] }),
    });
    expect(codeOf(res)).toBe('invalid_request');
    expect(res.body.errors![0]!.extensions!.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'input.metadata.note' }), expect.objectContaining({ field: 'input.answers.0.question' })]),
    );
  });
});

describe('list filters: guestEmail and guestPhone', () => {
  it('match exactly (e-mail case-insensitively, phone by its digits), combine with the other filters, and never match another app', async () => {
    const { tenant, a } = await setUp();
    const { a: other } = await setUp();
    const ann = await a.create(booking(futureDay(8, 10), { guestEmail: 'Ann.Lee@Example.com', guestPhone: '+44 (7700) 900-123' }));
    const annLater = await a.create(booking(futureDay(9, 10), { guestEmail: 'ann.lee@example.com', guestPhone: '+447700900123' }));
    await a.create(booking(futureDay(8, 11), { guestEmail: 'joanne.lee@example.com', guestPhone: '+447700900124' }));
    await a.create(booking(futureDay(8, 12)));
    // The same guest at another app.
    await other.create(booking(futureDay(8, 10), { guestEmail: 'ann.lee@example.com', guestPhone: '+447700900123' }));
    const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((c) => c.id);
    const annIds = [ann.body.data.call.id, annLater.body.data.call.id];

    expect(ids(await a.list('?guestEmail=ANN.LEE%40example.COM'))).toEqual(annIds);
    expect(ids(await a.list('?guestEmail=lee%40example.com'))).toEqual([]); // not a substring
    expect(ids(await a.list('?guestPhone=%2B447700900123'))).toEqual(annIds);
    expect(ids(await a.list('?guestPhone=+44%207700%20900123'))).toEqual(annIds); // `+` in a query string is a space
    expect(ids(await a.list('?guestPhone=447700900123&guestEmail=ann.lee%40example.com'))).toEqual(annIds);
    expect(ids(await a.list(`?guestPhone=447700900123&toUtc=${encodeURIComponent(futureDay(9, 0).toISOString())}`))).toEqual([annIds[0]]);
    expect(ids(await a.list('?guestPhone=447700900123&limit=1'))).toEqual([annIds[0]]);
    const next = (await a.list('?guestPhone=447700900123&limit=1')).body.pagination.nextCursor;
    expect(ids(await a.list(`?guestPhone=447700900123&limit=1&cursor=${next}`))).toEqual([annIds[1]]);
    expect((await other.list('?guestPhone=447700900123')).body.data).toHaveLength(1);

    const q = `query($app: UUID!, $email: String, $phone: String, $filter: ScheduledCallFilter) {
      byArgs: scheduledCalls(appId: $app, guestEmail: $email, guestPhone: $phone) { nodes { callId } }
      byFilter: scheduledCalls(appId: $app, filter: $filter) { nodes { callId } }
      app(appId: $app) { scheduledCalls(filter: $filter) { nodes { callId } } }
    }`;
    const graph = await a.gql(q, { app: tenant.appId, email: 'ANN.lee@example.com', filter: { guestPhone: '+44 7700 900123' } });
    expect(graph.body.errors).toBeUndefined();
    const nodeIds = (c: { nodes: { callId: string }[] }) => c.nodes.map((n) => n.callId);
    expect(nodeIds(graph.body.data.byArgs)).toEqual(annIds);
    expect(nodeIds(graph.body.data.byFilter)).toEqual(annIds);
    expect(nodeIds(graph.body.data.app.scheduledCalls)).toEqual(annIds);
  });

  it('a filter value that is not a phone number, or an over-long e-mail, is invalid_request naming it', async () => {
    const { tenant, a } = await setUp();
    for (const [query, field] of [
      ['?guestPhone=call-me', 'guestPhone'],
      [`?guestEmail=${'a'.repeat(321)}`, 'guestEmail'],
    ] as const) {
      const res = await a.list(query);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', details: [expect.objectContaining({ field })] });
    }
    const graph = await a.gql(`query($app: UUID!) { scheduledCalls(appId: $app, filter: { guestPhone: "call-me" }) { nodes { callId } } }`, { app: tenant.appId });
    expect(codeOf(graph)).toBe('invalid_request');
    expect(graph.body.errors![0]!.extensions!.details).toEqual([expect.objectContaining({ field: 'filter.guestPhone' })]);
  });

  it.runIf(process.env.DATABASE_URL)('each filter is an index scan of its guest index on PostgreSQL', async () => {
    const { tenant } = await setUp();
    const db = server.runtime.database.db;
    await db.execute(sql`insert into scheduled_calls (app_id, assigned_agent_id, booking_source, guest_name, guest_email, guest_phone, guest_timezone,
        scheduled_at, ends_at, duration_minutes, app_timezone, status)
      select ${tenant.appId}, ${agentIdOf(1)}, 'import', 'G', 'guest' || g || '@example.com', '+44 7700 ' || lpad(g::text, 6, '0'), 'UTC',
        now() - make_interval(hours => g), now() - make_interval(hours => g) + interval '30 minutes', 30, 'UTC', 'completed'
      from generate_series(1, 3000) g`);
    await db.execute(sql`analyze scheduled_calls`);
    const plan = async (where: ReturnType<typeof sql>) => {
      const [row] = rowsOf<{ 'QUERY PLAN': unknown }>(
        await db.execute(sql`explain (format json) select id from scheduled_calls where app_id = ${tenant.appId} and ${where} order by scheduled_at, id limit 51`),
      );
      return JSON.stringify(row!['QUERY PLAN']);
    };
    expect(await plan(sql`lower(guest_email) = lower(${'Guest17@example.com'}::text)`)).toContain('scheduled_calls_app_guest_email_idx');
    expect(await plan(sql`regexp_replace(guest_phone, '[^0-9]', '', 'g') = ${'447700000017'}`)).toContain('scheduled_calls_app_guest_phone_idx');
  });
});
