import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { booking, futureDay, keyedApi, keyedTenant } from './fixtures.js';

// Same-key requests racing: the key is claimed by one statement in the database, so exactly one
// of them runs, on one instance or on two sharing a PostgreSQL database. The others are 409 (still
// running) or, once the first finished, its replay.

const PARALLEL = 8;

type Answer = { status: number; headers: Headers; body: any };

function expectOneExecution(responses: Answer[]) {
  const executed = responses.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
  expect(executed).toHaveLength(1);
  for (const r of responses) {
    if (r === executed[0]) continue;
    if (r.status === 201) {
      expect(r.headers.get('idempotent-replayed')).toBe('true');
      expect(r.body).toEqual(executed[0]!.body);
    } else {
      expect(r.status).toBe(409);
      expect(r.body.error.type).toBe('conflict');
    }
  }
}

describe('concurrent requests with one key', () => {
  const { server } = useServer({ overrides: { DB_POOL_MAX: '10', CLIENT_MAX_CONCURRENT: '64' } });

  it(`${PARALLEL} parallel creates with one key book once`, async () => {
    const t = await keyedTenant(server);
    const body = booking(futureDay(70, 10));
    const responses = await Promise.all(Array.from({ length: PARALLEL }, () => t.create(body, 'race-1')));
    expectOneExecution(responses);
    expect(await t.calls()).toHaveLength(1);
  });
});

describe.runIf(process.env.DATABASE_URL)('concurrent requests with one key on two instances of one PostgreSQL database', () => {
  it(`${PARALLEL} parallel creates split over two instances book once`, async () => {
    const first = await startTestServer({ DB_POOL_MAX: '10', CLIENT_MAX_CONCURRENT: '64' });
    const second = await startTestServer({ DATABASE_URL: first.databaseUrl!, DB_POOL_MAX: '10', CLIENT_MAX_CONCURRENT: '64' });
    try {
      const t = await keyedTenant(first);
      const body = booking(futureDay(71, 10));
      const onSecond = keyedApi(second, t.tenant);
      const responses = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => (i % 2 === 0 ? t.create(body, 'race-2') : onSecond.create(body, 'race-2'))));
      expectOneExecution(responses);
      expect(await t.calls()).toHaveLength(1);
      // The replay is served by either instance.
      const later = await onSecond.create(body, 'race-2');
      expect(later.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await second.close();
      await first.close();
    }
  });
});
