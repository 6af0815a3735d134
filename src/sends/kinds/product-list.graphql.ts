import { builder } from '../../graphql/builder.js';
import { zodInputFields } from '../../graphql/zod-input.js';
import { envelopeHints, fixed, graphqlInput, HeaderInput, obj, sendMutation, TextInput } from '../sends.graphql.js';
import { productItem, productListAction, productListInteractive, productListMessageSchema, productSection } from './product-list.js';

// The Product List send's input and mutation.

const ProductItemInput = builder.inputType('ProductItemInput', {
  description: 'One product of a section, by retailer id.',
  fields: (t) => zodInputFields(t, productItem, { product_retailer_id: 'Retailer id of a catalog product.' }),
});
const ProductSectionInput = builder.inputType('ProductSectionInput', {
  description: 'A titled section of products.',
  fields: (t) =>
    zodInputFields(t, productSection, {
      title: 'Section title.',
      product_items: { description: 'Products of the section (at most 30 across all sections).', type: [ProductItemInput] },
    }),
});
const ProductListActionInput = builder.inputType('ProductListActionInput', {
  description: 'The catalog and its sections (at most 30 products in total).',
  fields: (t) =>
    zodInputFields(t, productListAction, {
      catalog_id: 'A catalog of the app (import type catalog).',
      sections: { description: 'At least 1; at most 30 product items in total.', type: [ProductSectionInput] },
    }),
});
const ProductListInteractiveInput = builder.inputType('ProductListInteractiveInput', {
  description: 'The interactive part of a Product List message.',
  fields: (t) =>
    zodInputFields(t, productListInteractive, {
      type: fixed('product_list'),
      header: { description: 'Required header: type text, text up to 60 characters.', type: HeaderInput },
      body: { description: 'Body: text up to 1024 characters.', type: TextInput },
      footer: { description: 'Optional footer: text up to 60 characters.', type: TextInput },
      action: { description: 'catalog_id and the sections.', type: ProductListActionInput },
    }),
});
const ProductListMessageInput = builder.inputType('ProductListMessageInput', {
  description: 'A Product List message: items of one catalog, in sections.',
  fields: (t) =>
    zodInputFields(t, productListMessageSchema, {
      ...envelopeHints,
      type: fixed('interactive'),
      interactive: { description: 'The product list: type product_list, header, body, footer, action.', type: ProductListInteractiveInput },
    }),
});

const productListInput = graphqlInput(productListMessageSchema, (input) => {
  input.type ??= 'interactive';
  const interactive = obj(input.interactive);
  if (interactive) interactive.type ??= 'product_list';
});

sendMutation(
  'sendProductListMessage',
  ProductListMessageInput,
  productListInput,
  'Sends a Product List message. Only inside the 24-hour window; catalog_id must be a catalog of the app; unmatched items are dropped, none matched is no_matching_products (422) with nothing stored.',
);
