// Starts its servers itself, not with useServer(): several instances at once on one database.
import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import { createFreshDatabase, startTestServer } from '../helpers/server.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/db/migrate.js';

// Migrations apply at start, guarded so that several instances can start at once; signing keys
// are shared by every instance, so a token from one is good on all.
describe.runIf(process.env.DATABASE_URL)('several instances starting together on one PostgreSQL database', () => {
  it('all start, agree on the signing key, and accept each other’s tokens', async () => {
    const first = await startTestServer();
    const others = await Promise.all([1, 2, 3].map(() => startTestServer({ DATABASE_URL: first.databaseUrl! })));
    try {
      const kids = new Set([first, ...others].map((s) => s.runtime.keys.kid));
      expect(kids.size).toBe(1);
      const tenant = await first.tenant();
      for (const other of others) {
        const res = await request(`${other.url}/graphql`, { token: tenant.accessToken, json: { query: '{ viewer { clientId } }' } });
        expect(res.status).toBe(200);
      }
      // Revocation on one instance is effective at once on another.
      const victim = await tenant.token();
      await request(`${others[0]!.url}/api/v1/oauth/revoke`, { token: victim, json: { token: victim } });
      const after = await request(`${others[1]!.url}/graphql`, { token: victim, json: { query: '{ viewer { clientId } }' } });
      expect(after.status).toBe(401);
    } finally {
      await Promise.all(others.map((s) => s.close()));
      await first.close();
    }
  });

  it('instances racing on an empty database all start; the migrations apply once', async () => {
    const empty = await createFreshDatabase(process.env.DATABASE_URL!);
    const racers = await Promise.allSettled([1, 2, 3, 4].map(() => startTestServer({ DATABASE_URL: empty.url })));
    try {
      expect(racers.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
      const [one] = racers.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const applied = await one!.runtime.database.pg!`select count(*)::int as n from drizzle.__drizzle_migrations`;
      const files = JSON.parse(readFileSync(path.join(projectRoot(), 'migrations/meta/_journal.json'), 'utf8')).entries.length;
      expect(applied[0]!.n).toBe(files);
    } finally {
      await Promise.all(racers.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
      await empty.drop();
    }
  });
});
