import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/use-server.js';
import { catalogRecords, importRecords, newPhone, productListBody, send, userWrote } from './fixtures.js';

const { server, tenant } = useServer({ tenant: true });

describe('NDJSON import types catalog and product', () => {
  it('counts catalogs and products, upserting a product that appears twice', async () => {
    const counts = await importRecords(server, tenant.appId, [
      ...catalogRecords('cat-a', ['p-1', 'p-2']),
      { type: 'product', catalog_id: 'cat-a', product_retailer_id: 'p-1', name: 'Renamed', price: 3.5 },
    ]);
    expect(counts).toMatchObject({ catalog: 1, product: 3 });
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    expect((await send(server, tenant, productListBody(phone, 'cat-a', [['p-1', 'p-2']]))).body.data.message.product_item_count).toBe(2);
  });

  it("refuses a product of an unknown catalog (or another app's), naming the line and writing nothing", async () => {
    const other = await server.tenant();
    await importRecords(server, other.appId, catalogRecords('cat-other', ['x-1']));
    await expect(
      importRecords(server, tenant.appId, [
        { type: 'catalog', id: 'cat-b', name: 'B' },
        { type: 'product', catalog_id: 'cat-other', product_retailer_id: 'x-1', name: 'X', price: 1 },
      ]),
    ).rejects.toThrow(/line 2: .*cat-other/);
    const phone = newPhone();
    await userWrote(server, tenant, phone);
    const res = await send(server, tenant, productListBody(phone, 'cat-b', [['x-1']]));
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('interactive.action.catalog_id');
  });

  it('refuses a negative price with the line number', async () => {
    await expect(
      importRecords(server, tenant.appId, [{ type: 'catalog', id: 'cat-c', name: 'C' }, { type: 'product', catalog_id: 'cat-c', product_retailer_id: 'n', name: 'N', price: -1 }]),
    ).rejects.toThrow(/line 2/);
  });
});
