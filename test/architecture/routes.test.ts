import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { gatewayRoutes, routeTable, type Listener } from '../../src/rest/routes.js';
import type { HttpEnv } from '../../src/web/hono-env.js';
import { useServer } from '../helpers/use-server.js';

// src/rest/routes.ts is the one list of every route: what each real listener mounts (Hono's
// `app.routes`) must be exactly its rows, so a route added to a listener and not to the table, or
// left in the table after it is gone, fails here.

/** `listener METHOD path` for each route a listener mounts; its 405 catch-alls and middleware aside. */
function mountedRows(listener: Listener, app: Hono<HttpEnv> | undefined): string[] {
  const rows = new Set<string>();
  const paths = new Set<string>();
  for (const { method, path } of app?.routes ?? []) {
    if (path.endsWith('*')) continue;
    paths.add(path);
    if (method !== 'ALL') rows.add(`${listener} ${method} ${path}`);
  }
  // A path mounted with no method of its own (only a catch-all) is a row too, so it cannot hide.
  for (const path of paths) if (![...rows].some((row) => row.endsWith(` ${path}`))) rows.add(`${listener} ALL ${path}`);
  return [...rows];
}

const tableRows = (config: Parameters<typeof routeTable>[0]) => routeTable(config).map((r) => `${r.listener} ${r.method} ${r.path}`);

describe('with /metrics on the API listener (METRICS on, no METRICS_PORT)', () => {
  const { server } = useServer({ overrides: { METRICS: 'true' } });

  it('the API and video host listeners mount exactly the table', () => {
    const { apps } = server.servers;
    expect(apps.metrics).toBeUndefined();
    const mounted = [...mountedRows('api', apps.main), ...mountedRows('video', apps.video)].sort();
    expect(mounted).toEqual(tableRows(server.runtime.config).sort());
    expect(mounted).toContain('api GET /metrics');
  });

  it('every row has a purpose and names where its handler is', () => {
    for (const row of routeTable(server.runtime.config)) {
      expect(row.purpose, `${row.method} ${row.path}`).toMatch(/\w{3}/);
      expect(row.handler, `${row.method} ${row.path}`).toMatch(/^src\/[\w/.-]+\.ts\b/);
    }
  });
});

describe('with METRICS_PORT (a metrics listener of its own)', () => {
  const { server } = useServer({ overrides: { METRICS: 'true', METRICS_PORT: '0' } });

  it('the three listeners mount exactly the table, /metrics only on its own listener', () => {
    const { apps } = server.servers;
    const mounted = [...mountedRows('api', apps.main), ...mountedRows('video', apps.video), ...mountedRows('metrics', apps.metrics)].sort();
    expect(mounted).toEqual(tableRows(server.runtime.config).sort());
    expect(mounted.filter((row) => row.endsWith(` ${gatewayRoutes.metrics.path}`))).toEqual(['metrics GET /metrics']);
  });
});

describe('without metrics', () => {
  const { server } = useServer({ overrides: { METRICS: 'false' } });

  it('the table has no /metrics and neither has any listener', () => {
    const { apps } = server.servers;
    const mounted = [...mountedRows('api', apps.main), ...mountedRows('video', apps.video)].sort();
    expect(mounted).toEqual(tableRows(server.runtime.config).sort());
    expect(mounted.some((row) => row.endsWith(' /metrics'))).toBe(false);
  });
});
