import { builder } from '../../graphql/builder.js';
import { envelopeFields, fixed, graphqlInput, HeaderInput, obj, sendMutation, TextInput } from '../sends.graphql.js';
import { productListMessageSchema } from './product-list.js';

// The Product List send's input and mutation.

const ProductItemInput = builder.inputType('ProductItemInput', { description: 'One product of a section, by retailer id.', fields: (t) => ({ product_retailer_id: t.string({ description: 'Retailer id of a catalog product.', required: true }) }) });
const ProductSectionInput = builder.inputType('ProductSectionInput', { description: 'A titled section of products.',
  fields: (t) => ({ title: t.string({ description: 'Section title.', required: true }), product_items: t.field({ description: 'Products of the section (at most 30 across all sections).', type: [ProductItemInput], required: true }) }),
});
const ProductListActionInput = builder.inputType('ProductListActionInput', { description: 'The catalog and its sections (at most 30 products in total).',
  fields: (t) => ({
    catalog_id: t.string({ required: true, description: 'A catalog of the app (import type catalog).' }),
    sections: t.field({ type: [ProductSectionInput], required: true, description: 'At least 1; at most 30 product items in total.' }),
  }),
});
const ProductListInteractiveInput = builder.inputType('ProductListInteractiveInput', { description: 'The interactive part of a Product List message.',
  fields: (t) => ({
    type: t.string({ description: fixed('product_list') }),
    header: t.field({ description: 'Required header: type text, text up to 60 characters.', type: HeaderInput, required: true }),
    body: t.field({ description: 'Body: text up to 1024 characters.', type: TextInput, required: true }),
    footer: t.field({ description: 'Optional footer: text up to 60 characters.', type: TextInput }),
    action: t.field({ description: 'catalog_id and the sections.', type: ProductListActionInput, required: true }),
  }),
});
const ProductListMessageInput = builder.inputType('ProductListMessageInput', {
  description: 'A Product List message: items of one catalog, in sections.',
  fields: (t) => ({
    ...envelopeFields(t),
    type: t.string({ description: fixed('interactive') }),
    interactive: t.field({ description: 'The product list: type product_list, header, body, footer, action.', type: ProductListInteractiveInput, required: true }),
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
