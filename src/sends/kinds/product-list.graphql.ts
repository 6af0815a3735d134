import { builder } from '../../graphql/builder.js';
import { zodInputFields } from '../../graphql/zod-input.js';
import { interactiveSendMutation } from './interactive.graphql.js';
import { productItem, productListAction, productListInteractive, productListMessageSchema, productSection } from './product-list.js';

// The Product List send's input and mutation.

const ProductItemInput = builder.inputType('ProductItemInput', {
  description: 'One product of a section, by retailer id.',
  fields: (t) => zodInputFields(t, productItem, { product_retailer_id: 'Retailer id of a catalog product.' }, { nullAsAbsent: true }),
});
const ProductSectionInput = builder.inputType('ProductSectionInput', {
  description: 'A titled section of products.',
  fields: (t) =>
    zodInputFields(t, productSection, {
      title: 'Section title.',
      product_items: { description: 'Products of the section (at most 30 across all sections).', type: [ProductItemInput] },
    }, { nullAsAbsent: true }),
});
const ProductListActionInput = builder.inputType('ProductListActionInput', {
  description: 'The catalog and its sections (at most 30 products in total).',
  fields: (t) =>
    zodInputFields(t, productListAction, {
      catalog_id: 'A catalog of the app (import type catalog).',
      sections: { description: 'At least 1; at most 30 product items in total.', type: [ProductSectionInput] },
    }, { nullAsAbsent: true }),
});
interactiveSendMutation({
  mutation: 'sendProductListMessage',
  prefix: 'ProductList',
  kind: 'product_list',
  interactiveSchema: productListInteractive,
  messageSchema: productListMessageSchema,
  interactiveDescription: 'The interactive part of a Product List message.',
  messageDescription: 'A Product List message: items of one catalog, in sections.',
  headerDescription: 'Required header: type text, text up to 60 characters.',
  action: { description: 'catalog_id and the sections.', type: ProductListActionInput },
  interactiveFieldDescription: 'The product list: type product_list, header, body, footer, action.',
  what: 'Sends a Product List message. Only inside the 24-hour window; catalog_id must be a catalog of the app; unmatched items are dropped, none matched is no_matching_products (422) with nothing stored.',
});
