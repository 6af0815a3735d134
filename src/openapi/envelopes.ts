import { nonNull, type JsonSchema } from './graphql-schema.js';

// How each REST route wraps its GraphQL result (its `respond`), as JSON Schema. Keyed by
// "METHOD path" (Hono path); test/openapi/document.test.ts fails when a mounted route has none,
// and the contract check in test/helpers/http.ts checks every response against the result.

export interface Envelope {
  summary: string;
  status: number;
  description: string;
  /**
   * `root` is the schema of the route's first root field as selected by its document; `roots`
   * has every root field's by response key (a document may pick one by @include/@skip).
   */
  body: (root: JsonSchema, roots: Record<string, JsonSchema>) => JsonSchema;
}

const meta = { $ref: '#/components/schemas/Meta' };
const pagination = { $ref: '#/components/schemas/Pagination' };
const obj = (properties: Record<string, JsonSchema>, required = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  properties,
  required,
});
const prop = (schema: JsonSchema, name: string): JsonSchema => nonNull((schema.properties as Record<string, JsonSchema>)[name]!);
const items = (schema: JsonSchema): JsonSchema => nonNull(schema.items as JsonSchema);

/** `data` + `meta.timestamp`, the envelope of most responses. */
const withMeta = (data: JsonSchema) => obj({ data, meta });
/** A cursor page: `data` array, `meta`, `pagination`. */
const page = (root: JsonSchema) => obj({ data: { type: 'array', items: items(prop(root, 'nodes')) }, meta, pagination });

/** A message: provider_from and provider_to are strings in REST, empty when unknown (analytics/rest.ts). */
function restMessage(message: JsonSchema): JsonSchema {
  const properties = { ...(message.properties as Record<string, JsonSchema>) };
  properties.provider_from = { ...nonNull(properties.provider_from!), description: 'Sender number at the provider; empty when unknown.' };
  properties.provider_to = { ...nonNull(properties.provider_to!), description: 'Recipient number at the provider; empty when unknown.' };
  return { ...message, properties };
}
const withProperty = (schema: JsonSchema, name: string, map: (s: JsonSchema) => JsonSchema): JsonSchema => ({
  ...schema,
  properties: { ...(schema.properties as Record<string, JsonSchema>), [name]: map(prop(schema, name)) },
});

/** A scheduled call: cancelled_at and cancellation_reason appear only after cancellation (always on a cancel's answer). */
function callRecord(call: JsonSchema, cancelled = false): JsonSchema {
  const properties = { ...(call.properties as Record<string, JsonSchema>) };
  const required = Object.keys(properties).filter((k) => cancelled || (k !== 'cancelled_at' && k !== 'cancellation_reason' && k !== 'events'));
  delete properties.events;
  for (const key of ['cancelled_at', 'cancellation_reason']) if (properties[key]) properties[key] = nonNull(properties[key]);
  return { ...call, properties, required };
}

export const envelopes: Record<string, Envelope> = {
  'POST /oauth/revoke': { summary: 'Revoke an access token', status: 200, description: 'Revoked (also when the token was invalid or already revoked).', body: () => withMeta({ type: 'object', maxProperties: 0 }) },
  'GET /analytics/:appId/messages': {
    summary: 'List connector messages',
    status: 200,
    description: 'A page of messages.',
    body: (root) => obj({ data: { type: 'array', items: restMessage(items(prop(root, 'nodes'))) }, meta, pagination }),
  },
  'GET /analytics/:appId/messages/:id': {
    summary: 'Get a message',
    status: 200,
    description: 'The message as the list shows it, plus `delivered_at` and `read_at`, at `data.message`.',
    body: (root) => withMeta(obj({ message: restMessage(root) })),
  },
  'GET /events/:appId': {
    summary: "List the app's events",
    status: 200,
    description: 'A page of events, oldest first; `pagination.nextCursor` is the last event id (pass it as `after`).',
    body: page,
  },
  'GET /analytics/:appId/campaigns': { summary: 'List campaigns', status: 200, description: 'A page of campaigns.', body: page },
  'POST /analytics/:appId/campaigns/search': { summary: 'Search campaigns', status: 200, description: 'A page of campaigns.', body: page },
  'GET /analytics/:appId/templates': { summary: 'List message templates', status: 200, description: 'A page of templates.', body: page },
  'GET /analytics/:appId/templates/:templateId': { summary: 'Get a template', status: 200, description: 'The template.', body: (root) => withMeta(root) },
  'GET /analytics/:appId/tags': { summary: 'List campaign tags', status: 200, description: 'Distinct campaign tags.', body: (root) => withMeta(root) },
  'GET /analytics/:appId/tags/:tag/stats': { summary: 'Get statistics of a tag', status: 200, description: 'Tag statistics.', body: (root) => withMeta(root) },
  'GET /analytics/:appId/metrics/daily': { summary: 'Daily delivery metrics', status: 200, description: 'One item per day.', body: (root) => withMeta(root) },
  'GET /analytics/:appId/metrics/summary': { summary: 'Summary delivery metrics', status: 200, description: 'Totals over the range.', body: (root) => withMeta(root) },
  'GET /video/:appId/availability': {
    summary: 'Open agent slots',
    status: 200,
    description: 'Open slots (only `data`, no `meta`); with `explain=true` also `data.rejected`, every other candidate and why.',
    body: (root, roots) =>
      obj({
        data: obj(
          {
            slots: prop(root, 'slots'),
            rejected: { ...prop(roots.explained!, 'rejected'), description: 'Only with `explain=true`: every candidate that is not a slot, sorted by `startUtc`, then `agentId`, with each reason.' },
          },
          ['slots'],
        ),
      }),
  },
  'GET /video/:appId/scheduled-calls/:id': {
    summary: 'Get a scheduled call and its timeline',
    status: 200,
    description: 'The call and its timeline (only `data`).',
    body: (root) => obj({ data: obj({ call: callRecord(root), events: prop(root, 'events') }) }),
  },
  'PATCH /video/:appId/scheduled-calls/:id': { summary: 'Update a scheduled call', status: 200, description: 'The updated call (only `data`).', body: (root) => obj({ data: obj({ call: root }) }) },
  'DELETE /video/:appId/scheduled-calls/:id': {
    summary: 'Cancel a scheduled call',
    status: 200,
    description: 'The cancelled call (only `data`).',
    body: (root) => obj({ data: obj({ call: callRecord(root, true) }) }),
  },
  'POST /video/:appId/scheduled-calls': { summary: 'Book a scheduled call', status: 201, description: 'The created call (only `data`).', body: (root) => obj({ data: obj({ call: callRecord(root) }) }) },
  'GET /video/:appId/scheduled-calls': {
    summary: 'List scheduled calls',
    status: 200,
    description: 'A page of scheduled calls (`data` and `pagination`).',
    body: (root) => obj({ data: { type: 'array', items: callRecord(items(prop(root, 'nodes'))) }, pagination }),
  },
  'POST /messaging/:appId/messages': {
    summary: 'Send a Flow, Product List or template message',
    status: 202,
    description: 'Accepted: the message is queued (an Idempotency-Key replay answers the same).',
    body: (root) => withMeta(obj({ message: prop(root, 'message') })),
  },
  'POST /messaging/:appId/inbound': {
    summary: 'Submit an inbound message or status update',
    status: 200,
    description: 'The event was stored or applied.',
    body: (root) => withMeta(withProperty(root, 'message', restMessage)),
  },
  'GET /api/calls/:callId': { summary: 'Look up a video call (video host)', status: 200, description: 'The video call.', body: (root) => obj({ ok: { const: true }, data: root }) },
};
