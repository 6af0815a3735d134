import { describe, expect, it } from 'vitest';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';
import { campaign, importRecords, message, template } from './fixtures.js';

// An import upserts on id. Every column changes on a re-import, multi-word ones too
// (drizzle keys an upsert's `set` by property name and silently drops column names).
const { server, tenant } = useServer({ tenant: true });

const get = (path: string) => request(`${server.url}/api/v1/analytics/${tenant.appId}${path}`, { token: tenant.accessToken });

describe('import upserts every column', () => {
  it('message, campaign and template', async () => {
    const m = message(1);
    const c = campaign(1);
    const t = template(1);
    await importRecords(server, tenant.appId, [c, m, t]);
    await importRecords(server, tenant.appId, [
      { ...c, total_contacts: 4242, sent_count: 4000 },
      { ...m, provider_to: '15559990000', user_phone: '15559990000', message_type: 'image', conversation_key: 'conv-new' },
      { ...t, header_text: 'New header', body_text: 'New body {{1}}', footer_text: 'New footer' },
    ]);
    const messages = (await get('/messages')).body.data as Record<string, unknown>[];
    expect(messages.find((x) => x.id === m.id)).toMatchObject({ provider_to: '15559990000', user_phone: '15559990000', message_type: 'image', conversation_key: 'conv-new' });
    const campaigns = (await get('/campaigns')).body.data as Record<string, unknown>[];
    expect(campaigns.find((x) => x.id === c.id)).toMatchObject({ total_contacts: 4242, sent_count: 4000 });
    const detail = (await get(`/templates/${t.id}`)).body.data as Record<string, unknown>;
    expect(detail).toMatchObject({ header_text: 'New header', body_text: 'New body {{1}}', footer_text: 'New footer' });
  });
});
