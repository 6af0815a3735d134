import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stillAuthorized } from '../../src/auth/access-tokens.js';
import type { AuthContext } from '../../src/auth/tokens.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { isConnectionError } from '../../src/db/raw.js';
import { createLogger } from '../../src/log.js';
import type { Runtime } from '../../src/runtime.js';
import { systemClock } from '../../src/time/clock.js';

// While PostgreSQL is away, the token lookup (one connection of its own, src/db/client.ts) must
// answer every waiting request with the next failed connection attempt, not queue one query per
// turn of the event loop behind attempts that each answered only one of them (src/auth/access-tokens.ts).
// A port nothing listens on stands in for the database; every lookup fails as a connection error.
let database: Database;

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

beforeAll(async () => {
  const url = `postgres://postgres@127.0.0.1:${await closedPort()}/nothing`;
  database = await openDatabase({ DATABASE_URL: url, DATA_DIR: 'memory', DB_POOL_MAX: 1, DB_PREPARE: true }, createLogger('silent'));
});
afterAll(() => database?.close());

describe('the token lookup while the database is unreachable', () => {
  it('answers every request within about two connection attempts, however many keep arriving', async () => {
    const runtime = { database, clock: systemClock } as unknown as Runtime;
    const auth: AuthContext = {
      clientId: 'client',
      jti: 'token',
      scopes: new Set(),
      apps: new Set(),
      expiresAt: new Date(Date.now() + 3_600_000),
    };
    const waits: number[] = [];
    const failures: unknown[] = [];
    const calls: Promise<void>[] = [];
    // A request every 10 ms for 3 s, as a busy instance gets them.
    for (let i = 0; i < 300; i++) {
      const started = performance.now();
      calls.push(
        stillAuthorized(runtime, auth).then(
          () => {
            throw new Error('the lookup cannot succeed without a database');
          },
          (error: unknown) => {
            failures.push(error);
            waits.push(performance.now() - started);
          },
        ),
      );
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(calls);
    expect(failures.every(isConnectionError)).toBe(true);
    // Reconnects back off to one attempt a second (src/db/reconnect-backoff.ts): a request waits
    // for the attempt in progress, then its own (1.7-1.8 s at most here). With one query a turn
    // queued behind the attempts, the waits grew for as long as requests came (over 30 s).
    expect(Math.max(...waits)).toBeLessThan(3_000);
  });
});
