import { and, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Tx } from '../../db/client.js';
import { AppError, validationFailed } from '../../errors/app-error.js';
import { catalogs, products } from '../tables.js';
import { interactiveMessage, isPlainObject, issue, nonEmpty, text, textHeader } from './common.js';

// The Product List send: items of one catalog of the app, in titled sections. Sent only inside the
// 24-hour window; items the catalog does not have are dropped before the send.

export const MAX_PRODUCT_ITEMS = 30;

export const productItem = z.strictObject({ product_retailer_id: nonEmpty });

export const productSection = z.strictObject({
  title: text(24),
  product_items: z.array(productItem).min(1, { message: 'must contain at least 1 product item' }),
});

const productSections = z
  .array(productSection)
  .min(1, { message: 'must contain at least 1 section' })
  .superRefine(
    (_, ctx) => {
      let total = 0;
      for (const section of ctx.value as unknown[]) {
        if (isPlainObject(section) && Array.isArray(section.product_items)) total += section.product_items.length;
      }
      if (total > MAX_PRODUCT_ITEMS) {
        ctx.addIssue(issue([], `must contain at most ${MAX_PRODUCT_ITEMS} product items in total (found ${total})`, 'too_big'));
      }
    },
    { when: (payload) => Array.isArray(payload.value) },
  )
  // Each section holds at least one item, so the total bounds the sections too; the total itself
  // is no JSON Schema rule: an extension states it.
  .meta({
    maxItems: MAX_PRODUCT_ITEMS,
    description: `At most ${MAX_PRODUCT_ITEMS} product items in total across sections.`,
    'x-max-total-product-items': MAX_PRODUCT_ITEMS,
  });

export const productListAction = z.strictObject({
  catalog_id: nonEmpty,
  sections: productSections,
});

export const { interactive: productListInteractive, message: productListMessageSchema } = interactiveMessage('product_list', textHeader, productListAction);

export type ProductListMessage = z.infer<typeof productListMessageSchema>;

export function countProductItems(msg: ProductListMessage): number {
  return msg.interactive.action.sections.reduce((n, section) => n + section.product_items.length, 0);
}

/**
 * Unmatched items are dropped (and sections left empty with them), so a stale item does not fail
 * the send; none matched is 422 no_matching_products; an unknown catalog is 400.
 */
export async function matchProducts(tx: Tx, appId: string, payload: ProductListMessage): Promise<ProductListMessage> {
  const { catalog_id: catalogId, sections } = payload.interactive.action;
  const [catalog] = await tx
    .select({ id: catalogs.id })
    .from(catalogs)
    .where(and(eq(catalogs.appId, appId), eq(catalogs.id, catalogId)))
    .limit(1);
  if (!catalog) {
    throw validationFailed([{ field: 'interactive.action.catalog_id', code: 'invalid_value', message: `is not a catalog of this app: ${catalogId}` }]);
  }

  const requested = [...new Set(sections.flatMap((s) => s.product_items.map((i) => i.product_retailer_id)))];
  const found = await tx
    .select({ id: products.productRetailerId })
    .from(products)
    .where(and(eq(products.appId, appId), eq(products.catalogId, catalogId), inArray(products.productRetailerId, requested)));
  const known = new Set(found.map((p) => p.id));
  const kept = sections
    .map((s) => ({ ...s, product_items: s.product_items.filter((i) => known.has(i.product_retailer_id)) }))
    .filter((s) => s.product_items.length > 0);
  if (kept.length === 0) {
    throw new AppError('no_matching_products', `No product_retailer_id matches a product of catalog ${catalogId}; nothing was sent`);
  }
  return { ...payload, interactive: { ...payload.interactive, action: { ...payload.interactive.action, sections: kept } } };
}
