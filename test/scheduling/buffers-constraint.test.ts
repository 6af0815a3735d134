import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { EXCLUSION_VIOLATION, pgErrorCode } from '../../src/db/raw.js';
import { useServer } from '../helpers/use-server.js';
import { agent, agentIdOf, allDay, tenantSetUp } from './fixtures.js';

// The exclusion constraint itself, without the service in front of it: whatever writes the table
// (a future code path, a hand-run statement), two `scheduled` calls of one agent never keep
// overlapping ranges, buffers included.

const { server } = useServer();
const setUp = tenantSetUp(server);

interface Row {
  agent?: number;
  at: string;
  minutes?: number;
  buffered?: [string, string];
  status?: string;
}

async function insert(appId: string, row: Row): Promise<string | undefined> {
  const start = new Date(row.at);
  const minutes = row.minutes ?? 30;
  const end = new Date(start.getTime() + minutes * 60_000);
  try {
    await server.runtime.database.db.execute(sql`
      insert into scheduled_calls (id, app_id, assigned_agent_id, booking_source, guest_name, guest_timezone,
        scheduled_at, ends_at, duration_minutes, app_timezone, status, buffered_from, buffered_until)
      values (${randomUUID()}, ${appId}, ${agentIdOf(row.agent ?? 1)}, 'api', 'Guest', 'UTC',
        ${start.toISOString()}, ${end.toISOString()}, ${minutes}, 'UTC', ${row.status ?? 'scheduled'},
        ${row.buffered?.[0] ?? null}, ${row.buffered?.[1] ?? null})`);
    return undefined;
  } catch (error) {
    return pgErrorCode(error) ?? String(error);
  }
}

describe('scheduled_calls_buffers_apart', () => {
  it('refuses a call inside another call’s buffer, and a call whose buffer covers another call', async () => {
    const { tenant } = await setUp({ agents: [agent(1, 'UTC', allDay), agent(2, 'UTC', allDay)] });
    // 10:00-10:30 keeping 09:00-11:30.
    expect(await insert(tenant.appId, { at: '2031-03-03T10:00:00Z', buffered: ['2031-03-03T09:00:00Z', '2031-03-03T11:30:00Z'] })).toBeUndefined();
    // Unbuffered, inside the buffer after it.
    expect(await insert(tenant.appId, { at: '2031-03-03T11:00:00Z' })).toBe(EXCLUSION_VIOLATION);
    // Its own buffer before reaches back into the first call's buffer.
    expect(await insert(tenant.appId, { at: '2031-03-03T12:00:00Z', buffered: ['2031-03-03T11:00:00Z', '2031-03-03T12:30:00Z'] })).toBe(EXCLUSION_VIOLATION);
  });

  it('lets ranges touch, other agents overlap, and cancelled calls keep nothing', async () => {
    const { tenant } = await setUp({ agents: [agent(1, 'UTC', allDay), agent(2, 'UTC', allDay)] });
    expect(await insert(tenant.appId, { at: '2031-03-04T10:00:00Z', buffered: ['2031-03-04T09:00:00Z', '2031-03-04T11:30:00Z'] })).toBeUndefined();
    // Starts where the buffer ends: half-open ranges touch without overlapping.
    expect(await insert(tenant.appId, { at: '2031-03-04T11:30:00Z' })).toBeUndefined();
    // Another agent, the same time.
    expect(await insert(tenant.appId, { agent: 2, at: '2031-03-04T10:00:00Z' })).toBeUndefined();
    // A cancelled call inside the buffer.
    expect(await insert(tenant.appId, { at: '2031-03-04T11:00:00Z', status: 'cancelled' })).toBeUndefined();
  });

  it('refuses a buffered range that does not contain its call', async () => {
    const { tenant } = await setUp({ agents: [agent(1, 'UTC', allDay)] });
    expect(await insert(tenant.appId, { at: '2031-03-05T10:00:00Z', buffered: ['2031-03-05T10:10:00Z', '2031-03-05T11:00:00Z'] })).toBe('23514');
  });
});
