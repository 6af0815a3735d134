import { describe, expect, it } from 'vitest';
import { routeTable } from '../../src/rest/routes.js';
import { useServer } from '../helpers/use-server.js';

// RFC 9110 section 15.5.6: a 405 names the methods the path has. Every path of the route table
// (src/rest/routes.ts, which test/architecture/routes.test.ts holds to what each listener mounts),
// on both listeners, asked with every method it lacks, with and without a token.

const { server, tenant } = useServer({ tenant: true, overrides: { METRICS: 'true' } });

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ID = '00000000-0000-4000-8000-000000000000';

/** A concrete URL path for a table path: the tenant's app, a well-formed id elsewhere. */
const concrete = (path: string) => path.replace(':appId', tenant.appId).replace(/:(\w+)/g, (_, name: string) => (name === 'file' ? 'swagger-ui.css' : name === 'tag' ? 'promo' : ID));

describe('405 Method Not Allowed', () => {
  it('every path of both listeners answers each method it lacks with 405 and Allow naming exactly its methods', async () => {
    const byPath = new Map<string, { listener: string; path: string; methods: Set<string> }>();
    for (const row of routeTable(server.runtime.config)) {
      if (row.listener === 'metrics') continue;
      const key = `${row.listener} ${row.path}`;
      const entry = byPath.get(key) ?? { listener: row.listener, path: row.path, methods: new Set<string>() };
      entry.methods.add(row.method);
      byPath.set(key, entry);
    }
    expect(byPath.size).toBeGreaterThanOrEqual(34);
    let checked = 0;
    for (const { listener, path, methods } of byPath.values()) {
      const base = listener === 'video' ? server.videoUrl : server.url;
      for (const method of METHODS.filter((m) => !methods.has(m))) {
        for (const token of [tenant.accessToken, undefined]) {
          const res = await fetch(`${base}${concrete(path)}`, {
            method,
            headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
            body: method === 'GET' ? undefined : '{}',
          });
          await res.arrayBuffer();
          const what = `${listener} ${method} ${path}${token ? '' : ' (no token)'}`;
          expect(res.status, what).toBe(405);
          const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter(Boolean);
          // HEAD comes with GET where a listener says so; the rest must be the table's methods.
          expect(allow.filter((m) => m !== 'HEAD').sort(), what).toEqual([...methods].sort());
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
