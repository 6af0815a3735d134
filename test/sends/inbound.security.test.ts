import { beforeAll, describe, expect, it } from 'vitest';
import { message } from '../analytics/fixtures.js';
import { expectErrorEnvelope } from '../helpers/http.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { ago, flowTemplate, importRecords, messagesMatching, metricsSummary, statusUpdate } from './fixtures.js';

const { server, tenant } = useServer({ tenant: true });

beforeAll(async () => {
  await importRecords(server, tenant.appId, [flowTemplate(1)]);
});

const summary = (t: Tenant = tenant) => metricsSummary(server, t);

describe('POST /messaging/{appId}/inbound: status updates of imported messages', () => {
  // History imported with its provider_message_id gets its delivery receipts like the service's

  // own sends: status updates are for messages, not only for sends.

  const list = (t: Tenant, search: string) => messagesMatching(server, t, search);

  it("never touches another app's message with the same provider_message_id", async () => {
    const owner = await server.tenant();
    const other = await server.tenant();
    const imported = (id: string) => message(4, { id, direction: 'outbound', status: 'sent', provider_message_id: 'wamid.shared.1', created_at: ago(60), sent_at: ago(60) });
    await importRecords(server, owner.appId, [imported('own-1')]);

    // The other app has no such message: 404, and the owner's message is unchanged.
    const refused = await statusUpdate(server, other, 'wamid.shared.1', 'read', ago(50));
    expect(refused.status).toBe(404);
    expectErrorEnvelope(refused.body, 'not_found');
    expect(await list(owner, 'wamid.shared.1')).toMatchObject([{ id: 'own-1', status: 'sent' }]);

    // Once it imports its own message with that id, its update moves only its own.
    await importRecords(server, other.appId, [imported('other-1')]);
    expect((await statusUpdate(server, other, 'wamid.shared.1', 'failed', ago(49), { error: { message: 'blocked' } })).body.data).toMatchObject({
      applied: true,
      message: { id: 'other-1', status: 'failed', error_message: 'blocked' },
    });
    expect(await list(owner, 'wamid.shared.1')).toMatchObject([{ id: 'own-1', status: 'sent', failed_at: null, error_message: null }]);
    expect(await summary(owner)).toMatchObject({ sent: 1, failed: 0 });
    expect(await summary(other)).toMatchObject({ sent: 0, failed: 1 });
  });
});
