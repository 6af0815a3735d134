import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  countProductItems,
  flowMessageSchema,
  productListMessageSchema,
  sendMessageSchema,
  templateMessageSchema,
  type FlowMessage,
  type ProductListMessage,
} from '../../src/sends/payloads.js';
import { characterCount, containsEmoji, containsMarkdown } from '../../src/sends/text-rules.js';

// Bodies are built fresh per test; the invalid cases mutate a copy (`any`: they break the shape on purpose).

function navigateFlow(): any {
  return {
    to: '+14155550100',
    type: 'interactive',
    interactive: {
      type: 'flow',
      header: { type: 'text', text: 'Book an appointment' },
      body: { text: 'Pick a time that suits you.' },
      footer: { text: 'Takes a minute' },
      action: {
        name: 'flow',
        parameters: {
          flow_message_version: '3',
          flow_token: 'tok_0001',
          flow_id: '1234567890',
          flow_cta: 'Book now',
          flow_action: 'navigate',
          flow_action_payload: { screen: 'WELCOME', data: { customer: { id: 7 }, slots: [1, 2] } },
        },
      },
    },
    tags: ['booking'],
    metadata: { campaign: 'spring', nested: { any: ['thing'] } },
  };
}

function dataExchangeFlow(): any {
  return {
    to: '14155550100',
    type: 'interactive',
    interactive: {
      type: 'flow',
      body: { text: 'Sign up' },
      action: {
        name: 'flow',
        parameters: {
          flow_message_version: '3',
          flow_token: 'tok_0002',
          flow_name: 'signup_v2',
          flow_cta: 'Sign up',
          flow_action: 'data_exchange',
          mode: 'draft',
        },
      },
    },
    metadata: 'free text',
  };
}

const items = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ product_retailer_id: `sku-${from + i}` }));

function productList(): any {
  return {
    to: '+447700900123',
    type: 'interactive',
    interactive: {
      type: 'product_list',
      header: { type: 'text', text: 'Spring collection' },
      body: { text: 'Our picks for you' },
      footer: { text: 'Prices include VAT' },
      action: {
        catalog_id: 'cat_42',
        sections: [
          { title: 'Shoes', product_items: items(0, 18) },
          { title: 'Bags', product_items: items(18, 12) },
        ],
      },
    },
  };
}

function template(): any {
  return {
    to: '+14155550100',
    type: 'template',
    template: { name: 'order_update', language: 'en_US', parameters: ['Ana', '#1234'], flow_token: 'tok_3', flow_action_data: { a: 1 } },
  };
}

/** Each issue as "path code", the code being params.code for custom issues. */
function summarize(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const code = issue.code === 'custom' ? String((issue.params as { code?: string } | undefined)?.code) : issue.code;
    return `${issue.path.map(String).join('.')} ${code}`;
  });
}

function issuesOf(schema: z.ZodType, body: unknown): string[] {
  const result = schema.safeParse(body);
  expect(result.success, 'expected the body to be rejected').toBe(false);
  return summarize(result.error?.issues ?? []);
}

const P = 'interactive.action.parameters';

describe('valid bodies', () => {
  it('accepts a Flow with navigate (free-form data and metadata kept as given)', () => {
    const body = navigateFlow();
    const expected = structuredClone(body);
    expected.interactive.action.parameters.mode = 'published'; // the fixture leaves mode out
    expect(sendMessageSchema.parse(body)).toEqual(expected);
    const typed: FlowMessage = flowMessageSchema.parse(body);
    expect(typed).toEqual(expected);
  });

  it('accepts a Flow with data_exchange and no payload', () => {
    const parsed = flowMessageSchema.parse(dataExchangeFlow());
    expect(parsed.interactive.action.parameters).toMatchObject({ flow_action: 'data_exchange', mode: 'draft', flow_name: 'signup_v2' });
    expect(parsed.interactive.action.parameters.flow_action_payload).toBeUndefined();
    expect(sendMessageSchema.safeParse(dataExchangeFlow()).success).toBe(true);
  });

  it('applies defaults: flow_action navigate, mode published', () => {
    const body = navigateFlow();
    delete body.interactive.action.parameters.flow_action;
    delete body.interactive.action.parameters.mode;
    const parsed = flowMessageSchema.parse(body);
    expect(parsed.interactive.action.parameters.flow_action).toBe('navigate');
    expect(parsed.interactive.action.parameters.mode).toBe('published');
    const viaSend = sendMessageSchema.parse(body);
    expect(viaSend.type === 'interactive' && viaSend.interactive.type === 'flow' && viaSend.interactive.action.parameters).toMatchObject({
      flow_action: 'navigate',
      mode: 'published',
    });
  });

  it('accepts a Product List with 2 sections and 30 items', () => {
    const parsed: ProductListMessage = productListMessageSchema.parse(productList());
    expect(countProductItems(parsed)).toBe(30);
    expect(sendMessageSchema.parse(productList())).toEqual(productList());
  });

  it('accepts a template send', () => {
    expect(templateMessageSchema.parse(template())).toEqual(template());
    expect(sendMessageSchema.parse({ to: '123456', type: 'template', template: { name: 'hello', language: 'en' } })).toEqual({
      to: '123456',
      type: 'template',
      template: { name: 'hello', language: 'en' },
    });
  });

  it('accepts a body of 1024 emoji graphemes (counted as characters, not code units)', () => {
    const body = navigateFlow();
    body.interactive.body.text = '👍🏽'.repeat(1024); // 4096 UTF-16 code units
    expect(sendMessageSchema.safeParse(body).success).toBe(true);
    body.interactive.body.text = 'e\u0301'.repeat(1024);
    expect(sendMessageSchema.safeParse(body).success).toBe(true);
    body.interactive.body.text = '👍🏽'.repeat(1025);
    expect(issuesOf(sendMessageSchema, body)).toEqual(['interactive.body.text too_long']);
  });

  it('accepts flow_cta of exactly 20 characters, including multi-code-unit letters', () => {
    const body = navigateFlow();
    body.interactive.action.parameters.flow_cta = 'é'.normalize('NFD').repeat(20);
    expect(sendMessageSchema.safeParse(body).success).toBe(true);
  });
});

type Case = { name: string; schema?: z.ZodType; make: () => any; expected: string[] };

const invalid: Case[] = [
  { name: 'missing to', make: () => (({ to: _, ...rest }) => rest)(navigateFlow()), expected: ['to invalid_type'] },
  { name: 'to not a phone number', make: () => ({ ...navigateFlow(), to: '+1 415 555' }), expected: ['to invalid_format'] },
  {
    name: 'wrong type literal (flow schema)',
    schema: flowMessageSchema,
    make: () => ({ ...navigateFlow(), type: 'template' }),
    expected: ['type invalid_value'],
  },
  {
    name: 'wrong interactive.type literal (flow schema)',
    schema: flowMessageSchema,
    make: () => {
      const b = navigateFlow();
      b.interactive.type = 'product_list';
      return b;
    },
    expected: ['interactive.type invalid_value'],
  },
  { name: 'unknown message type', make: () => ({ ...navigateFlow(), type: 'text' }), expected: ['type invalid_value'] },
  { name: 'missing message type', make: () => (({ type: _, ...rest }) => rest)(navigateFlow()), expected: ['type required'] },
  {
    name: 'unknown interactive kind',
    make: () => {
      const b = navigateFlow();
      b.interactive.type = 'carousel';
      return b;
    },
    expected: ['interactive.type invalid_value'],
  },
  {
    name: 'missing interactive kind',
    make: () => {
      const b = navigateFlow();
      delete b.interactive.type;
      return b;
    },
    expected: ['interactive.type required'],
  },
  {
    name: 'header text 61 characters',
    make: () => {
      const b = navigateFlow();
      b.interactive.header.text = 'h'.repeat(61);
      return b;
    },
    expected: ['interactive.header.text too_long'],
  },
  {
    name: 'body text 1025 characters',
    make: () => {
      const b = navigateFlow();
      b.interactive.body.text = 'b'.repeat(1025);
      return b;
    },
    expected: ['interactive.body.text too_long'],
  },
  {
    name: 'footer text 61 characters',
    make: () => {
      const b = navigateFlow();
      b.interactive.footer.text = 'f'.repeat(61);
      return b;
    },
    expected: ['interactive.footer.text too_long'],
  },
  {
    name: 'flow_cta 21 characters',
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.flow_cta = 'c'.repeat(21);
      return b;
    },
    expected: [`${P}.flow_cta too_long`],
  },
  {
    name: 'flow_cta with an emoji',
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.flow_cta = 'Book 👍🏽';
      return b;
    },
    expected: [`${P}.flow_cta invalid_value`],
  },
  {
    name: 'flow_cta with a flag',
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.flow_cta = 'Go 🇫🇷';
      return b;
    },
    expected: [`${P}.flow_cta invalid_value`],
  },
  {
    name: 'flow_cta with *bold*',
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.flow_cta = '*Book* now';
      return b;
    },
    expected: [`${P}.flow_cta invalid_value`],
  },
  {
    name: 'both flow_id and flow_name',
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.flow_name = 'booking';
      return b;
    },
    expected: [`${P}.flow_id invalid_value`],
  },
  {
    name: 'neither flow_id nor flow_name',
    make: () => {
      const b = navigateFlow();
      delete b.interactive.action.parameters.flow_id;
      return b;
    },
    expected: [`${P}.flow_id required`],
  },
  {
    name: "flow_message_version '2'",
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.flow_message_version = '2';
      return b;
    },
    expected: [`${P}.flow_message_version invalid_value`],
  },
  {
    name: 'empty flow_token',
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.flow_token = '';
      return b;
    },
    expected: [`${P}.flow_token too_small`],
  },
  {
    name: 'navigate without flow_action_payload',
    make: () => {
      const b = navigateFlow();
      delete b.interactive.action.parameters.flow_action_payload;
      return b;
    },
    expected: [`${P}.flow_action_payload required`],
  },
  {
    name: 'navigate (by default) without flow_action_payload',
    make: () => {
      const b = navigateFlow();
      delete b.interactive.action.parameters.flow_action;
      delete b.interactive.action.parameters.flow_action_payload;
      return b;
    },
    expected: [`${P}.flow_action_payload required`],
  },
  {
    name: 'navigate without screen',
    make: () => {
      const b = navigateFlow();
      delete b.interactive.action.parameters.flow_action_payload.screen;
      return b;
    },
    expected: [`${P}.flow_action_payload.screen required`],
  },
  {
    name: 'data_exchange with flow_action_payload',
    make: () => {
      const b = dataExchangeFlow();
      b.interactive.action.parameters.flow_action_payload = { screen: 'WELCOME' };
      return b;
    },
    expected: [`${P}.flow_action_payload unrecognized`],
  },
  {
    name: "flow_action 'jump'",
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.flow_action = 'jump';
      return b;
    },
    expected: [`${P}.flow_action invalid_value`],
  },
  {
    name: "mode 'beta'",
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.mode = 'beta';
      return b;
    },
    expected: [`${P}.mode invalid_value`],
  },
  { name: 'metadata as a number', make: () => ({ ...navigateFlow(), metadata: 42 }), expected: ['metadata invalid_type'] },
  { name: 'metadata as an array', make: () => ({ ...navigateFlow(), metadata: ['a'] }), expected: ['metadata invalid_type'] },
  { name: 'tags with a number', make: () => ({ ...navigateFlow(), tags: ['ok', 7] }), expected: ['tags.1 invalid_type'] },
  {
    name: 'unknown key inside parameters',
    make: () => {
      const b = navigateFlow();
      b.interactive.action.parameters.flow_version = '3';
      return b;
    },
    expected: [`${P} unrecognized_keys`],
  },
  { name: 'unknown top-level key', make: () => ({ ...navigateFlow(), priority: 'high' }), expected: [' unrecognized_keys'] },
  {
    name: 'product list with 0 sections',
    make: () => {
      const b = productList();
      b.interactive.action.sections = [];
      return b;
    },
    expected: ['interactive.action.sections too_small'],
  },
  {
    name: 'product list with 31 items across sections',
    make: () => {
      const b = productList();
      b.interactive.action.sections.push({ title: 'Hats', product_items: items(30, 1) });
      return b;
    },
    expected: ['interactive.action.sections too_big'],
  },
  {
    name: 'product list section with no items',
    make: () => {
      const b = productList();
      b.interactive.action.sections[1].product_items = [];
      return b;
    },
    expected: ['interactive.action.sections.1.product_items too_small'],
  },
  {
    name: 'product list section title 25 characters',
    make: () => {
      const b = productList();
      b.interactive.action.sections[0].title = 't'.repeat(25);
      return b;
    },
    expected: ['interactive.action.sections.0.title too_long'],
  },
  {
    name: 'missing product_retailer_id at a nested index',
    make: () => {
      const b = productList();
      delete b.interactive.action.sections[1].product_items[3].product_retailer_id;
      return b;
    },
    expected: ['interactive.action.sections.1.product_items.3.product_retailer_id invalid_type'],
  },
  {
    name: 'product list header missing',
    make: () => {
      const b = productList();
      delete b.interactive.header;
      return b;
    },
    expected: ['interactive.header invalid_type'],
  },
  {
    name: 'product list missing catalog_id',
    make: () => {
      const b = productList();
      delete b.interactive.action.catalog_id;
      return b;
    },
    expected: ['interactive.action.catalog_id invalid_type'],
  },
  {
    name: 'template language not a locale code',
    make: () => {
      const b = template();
      b.template.language = 'english';
      return b;
    },
    expected: ['template.language invalid_format'],
  },
  {
    name: 'template flow_action_data not an object',
    make: () => {
      const b = template();
      b.template.flow_action_data = 'x';
      return b;
    },
    expected: ['template.flow_action_data invalid_type'],
  },
  {
    name: 'template parameters with a number',
    make: () => {
      const b = template();
      b.template.parameters = ['Ana', 5];
      return b;
    },
    expected: ['template.parameters.1 invalid_type'],
  },
  { name: 'body not an object', make: () => 'hello', expected: [' invalid_type'] },
];

describe('invalid bodies', () => {
  it.each(invalid)('$name', ({ schema = sendMessageSchema, make, expected }) => {
    expect(issuesOf(schema, make())).toEqual(expected);
  });

  it('names the unknown key', () => {
    const result = sendMessageSchema.safeParse({ ...navigateFlow(), priority: 'high' });
    expect(result.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['priority'], path: [] });
  });

  it('says the limit in the message', () => {
    const b = navigateFlow();
    b.interactive.action.parameters.flow_cta = 'c'.repeat(21);
    expect(sendMessageSchema.safeParse(b).error?.issues[0]?.message).toBe('must be at most 20 characters');
  });

  it('a character takes at most 16 code units on average: one letter with 300,000 combining marks is refused', () => {
    const b = navigateFlow();
    b.interactive.action.parameters.flow_cta = `B${'\u0301'.repeat(300_000)}`;
    expect(sendMessageSchema.safeParse(b).error?.issues).toEqual([
      expect.objectContaining({ path: ['interactive', 'action', 'parameters', 'flow_cta'], message: 'must be at most 320 UTF-16 code units (16 per character)', params: { code: 'too_long' } }),
    ]);
    // Long clusters within the allowance still count one each: 20 family emoji of 11 code units.
    b.interactive.action.parameters.flow_cta = '👨‍👩‍👧‍👦'.repeat(20);
    const lengthIssues = sendMessageSchema.safeParse(b).error?.issues.filter((i) => i.path.includes('flow_cta') && /at most/.test(i.message));
    expect(lengthIssues).toEqual([]);
  });

  it('reports all issues at once, cross-field checks included', () => {
    const b = navigateFlow();
    b.to = 'abc';
    b.interactive.header.text = 'h'.repeat(61);
    const params = b.interactive.action.parameters;
    params.flow_cta = '🎉'.repeat(21);
    params.flow_name = 'booking'; // with flow_id
    params.mode = 'beta';
    delete params.flow_action_payload;
    expect(issuesOf(sendMessageSchema, b).sort()).toEqual(
      [
        'to invalid_format',
        'interactive.header.text too_long',
        `${P}.flow_cta too_long`,
        `${P}.flow_cta invalid_value`,
        `${P}.flow_id invalid_value`,
        `${P}.mode invalid_value`,
        `${P}.flow_action_payload required`,
      ].sort(),
    );
  });

  it('reports the 30-item cap alongside other section issues', () => {
    const b = productList();
    b.interactive.action.sections.push({ title: 'Hats', product_items: [{ product_retailer_id: 'h-1' }, {}] });
    expect(issuesOf(sendMessageSchema, b)).toEqual([
      'interactive.action.sections.2.product_items.1.product_retailer_id invalid_type',
      'interactive.action.sections too_big',
    ]);
  });

  it('still checks the envelope when the kind is unknown', () => {
    const b = navigateFlow();
    b.interactive.type = 'carousel';
    b.to = '12';
    expect(issuesOf(sendMessageSchema, b)).toEqual(['interactive.type invalid_value', 'to invalid_format']);
  });

  it('prefixes paths when nested in another schema', async () => {
    const { z } = await import('zod');
    const wrapper = z.object({ message: sendMessageSchema });
    const b = navigateFlow();
    b.interactive.action.parameters.flow_cta = 'c'.repeat(21);
    expect(issuesOf(wrapper, { message: b })).toEqual([`message.${P}.flow_cta too_long`]);
  });

  it('maps onto the API detail codes', async () => {
    const { zodIssuesToDetails } = await import('../../src/errors/zod-details.js');
    const b = productList();
    delete b.to;
    b.interactive.header.text = 'h'.repeat(61);
    b.interactive.action.sections.push({ title: 'Hats', product_items: items(30, 1) });
    b.extra = true;
    const details = zodIssuesToDetails(productListMessageSchema.safeParse(b).error?.issues ?? []);
    expect(details.map((d) => `${d.field} ${d.code}`).sort()).toEqual(
      ['to required', 'interactive.header.text too_long', 'interactive.action.sections too_big', 'extra unrecognized'].sort(),
    );
  });
});

describe('text rules', () => {
  it('counts grapheme clusters', () => {
    expect(characterCount('👍🏽')).toBe(1);
    expect(characterCount('e\u0301')).toBe(1);
    expect(characterCount('🇫🇷')).toBe(1);
    expect(characterCount('👨‍👩‍👧')).toBe(1);
    expect(characterCount('abc')).toBe(3);
    expect(characterCount('')).toBe(0);
  });

  it('detects emoji', () => {
    for (const s of ['👍', '👍🏽', '🇫🇷', '❤️', '1️⃣', '👨‍👩‍👧']) expect(containsEmoji(s), s).toBe(true);
    for (const s of ['Book now', 'Café', 'Über 10% off', '日本語']) expect(containsEmoji(s), s).toBe(false);
  });

  it('detects WhatsApp formatting', () => {
    for (const s of ['*bold*', '_it_', '~strike~', '`code`', '```mono```', 'see [docs](https://x.io)']) expect(containsMarkdown(s), s).toBe(true);
    for (const s of ['Book now', 'Sign up (free)', '[draft]', '50% off!']) expect(containsMarkdown(s), s).toBe(false);
  });
});
