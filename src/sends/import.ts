import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { storableText } from '../validation/storable.js';
import type { ImportType } from '../importer/ndjson.js';
import { catalogs, products } from './tables.js';

// NDJSON `catalog` (id, name) and `product` (catalog_id, product_retailer_id, name,
// price), upserted per app. A product names a catalog of the same app (imported earlier in the
// file or before).
const text = (max: number) => storableText(z.string().min(1).max(max));
const catalogRecord = z.strictObject({ id: text(200), name: text(500) });
const productRecord = z.strictObject({
  catalog_id: text(200),
  product_retailer_id: text(200),
  name: text(500),
  price: z.number().nonnegative(),
});

export const catalogImport: ImportType<typeof catalogRecord> = {
  type: 'catalog',
  schema: catalogRecord,
  write: async (tx, appId, records) => {
    await tx
      .insert(catalogs)
      .values(records.map((r) => ({ appId, id: r.id, name: r.name })))
      .onConflictDoUpdate({ target: [catalogs.appId, catalogs.id], set: { name: sql.raw('excluded.name'), updatedAt: sql`now()` } });
  },
};

export const productImport: ImportType<typeof productRecord> = {
  type: 'product',
  schema: productRecord,
  write: async (tx, appId, records) => {
    const wanted = [...new Set(records.map((r) => r.catalog_id))];
    const found = await tx
      .select({ id: catalogs.id })
      .from(catalogs)
      .where(and(eq(catalogs.appId, appId), inArray(catalogs.id, wanted)));
    const missing = wanted.filter((id) => !found.some((c) => c.id === id));
    if (missing.length > 0) throw new Error(`catalog ${missing[0]} is not a catalog of this app (import it first)`);
    // Two lines for one product: the later wins (the importer keys its batches on `id`, which products lack).
    const byKey = new Map(records.map((r) => [`${r.catalog_id}\u0000${r.product_retailer_id}`, r]));
    await tx
      .insert(products)
      .values([...byKey.values()].map((r) => ({ appId, catalogId: r.catalog_id, productRetailerId: r.product_retailer_id, name: r.name, price: r.price })))
      .onConflictDoUpdate({
        target: [products.appId, products.catalogId, products.productRetailerId],
        set: { name: sql.raw('excluded.name'), price: sql.raw('excluded.price'), updatedAt: sql`now()` },
      });
  },
};
