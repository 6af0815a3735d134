import { serverAudits } from 'graphql-http';
import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';

/**
 * graphql-http's conformance audits against the real server. Every operation needs a bearer
 * token, so the audits' requests carry one; everything else they send as they wrote it.
 */
describe('GraphQL over HTTP: the graphql-http server audits', () => {
  const { server, tenant } = useServer({ tenant: { rate: { minute: 10_000, hour: 10_000, day: 10_000 } } });

  it('every audit is ok: no error, warning or notice', async () => {
    const audits = serverAudits({
      url: `${server.url}/graphql`,
      fetchFn: (input: RequestInfo | URL, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${tenant.accessToken}`);
        return fetch(input, { ...init, headers });
      },
    });
    expect(audits.length).toBeGreaterThan(50);
    const failed: string[] = [];
    for (const audit of audits) {
      const result = await audit.fn();
      if (result.status !== 'ok') failed.push(`${result.id} ${result.name} (${result.status}): ${result.reason}`);
    }
    expect(failed).toEqual([]);
  });
});
