import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '../../src/auth/scopes.js';
import { importRecords as importAnalytics, message } from '../analytics/fixtures.js';
import { checkContract } from '../helpers/contract.js';
import type { Tenant } from '../helpers/server.js';
import { useServer } from '../helpers/use-server.js';
import { agent, everyDay, futureDay, importRecords as importScheduling, importedCall, callIdOf } from '../scheduling/fixtures.js';
import { arbitraryFor, breakValue, type Schema } from './schema-arbitrary.js';

// Requests generated from the OpenAPI document itself, sent to the real server. For each
// operation: valid requests (by the document's parameter and body schemas) and broken ones.
// Every answer: no 5xx, a status the operation documents, a body valid against its schema
// (checkContract). Every request the document calls valid is accepted, unless one of the rules
// below, which no JSON Schema can state, refuses it.

const { server } = useServer();
let tenant: Tenant;
let doc: { paths: Record<string, Record<string, any>>; components: Record<string, any> };

/** A documented refusal of a request the schemas call valid: which answer, and why. */
interface Rule {
  status: number;
  type?: string;
  /** The detail fields it names (any of them), when it is a validation failure. */
  fields?: string[];
  reason: string;
}

const anyOperation: Rule[] = [
  { status: 404, type: 'not_found', reason: 'a well-formed id (path, agent, template) that names no record of the app' },
  { status: 400, fields: ['cursor', 'after'], reason: 'a cursor must come from a previous page of the same list (it is signed)' },
  // The generator may send one Idempotency-Key twice, with another body the second time.
  { status: 422, type: 'idempotency_key_reused', reason: 'an Idempotency-Key sent before with another request' },
];

const rules: Record<string, Rule[]> = {
  'GET /analytics/{appId}/messages': [{ status: 400, fields: ['endDate'], reason: 'endDate on or after startDate' }],
  'GET /analytics/{appId}/campaigns': [{ status: 400, fields: ['endDate', 'createdBefore'], reason: 'the range ends after it starts' }],
  'POST /analytics/{appId}/campaigns/search': [{ status: 400, fields: ['filter.endDate'], reason: 'the range ends after it starts' }],
  'GET /analytics/{appId}/metrics/daily': [
    { status: 400, fields: ['startDate', 'endDate'], reason: 'endDate after startDate, and the range at most 400 days' },
    { status: 400, fields: ['timezone'], reason: 'timezone must name an IANA zone (the zone database is no schema)' },
  ],
  'GET /analytics/{appId}/metrics/summary': [{ status: 400, fields: ['startDate', 'endDate'], reason: 'endDate after startDate, and the range at most 400 days' }],
  'GET /video/{appId}/availability': [
    { status: 400, type: 'invalid_request', reason: 'toUtc after fromUtc; at most 400 candidate slots; buffers and step within the window' },
  ],
  'GET /video/{appId}/scheduled-calls': [{ status: 400, fields: ['toUtc'], reason: 'toUtc after fromUtc' }],
  'POST /video/{appId}/scheduled-calls': [
    { status: 400, type: 'invalid_request', reason: 'scheduledAtUtc in the future; guestTimezone an IANA zone; the agent exists and works then' },
    { status: 409, type: 'conflict', reason: 'the slot is taken or outside working hours' },
  ],
  'PATCH /video/{appId}/scheduled-calls/{id}': [
    { status: 400, type: 'invalid_request', reason: 'at least one editable field (reason alone is not one); a future time; an IANA guestTimezone' },
    { status: 409, type: 'conflict', reason: 'the call is in a final state, or the new slot is taken' },
  ],
  'POST /messaging/{appId}/messages': [
    { status: 400, type: 'validation_error', reason: 'the catalog or template must exist in the app; flow_cta without emoji or formatting; the product total' },
    { status: 404, type: 'not_found', reason: 'a template send names a template of the app' },
    { status: 409, reason: 'Idempotency-Key reused with another body' },
    { status: 422, reason: 'outside the 24-hour service window; no product matches the catalog' },
  ],
  'POST /messaging/{appId}/inbound': [{ status: 400, fields: ['timestamp'], reason: 'an event timestamp may not be in the future' }],
  'GET /analytics/{appId}/tags/{tag}/stats': [],
};

const matches = (rule: Rule, status: number, body: any) =>
  rule.status === status &&
  (!rule.type || body?.error?.type === rule.type) &&
  (!rule.fields || (body?.error?.details ?? []).some((d: { field: string }) => rule.fields!.includes(d.field)));

const resolve = (ref: string) => ref.replace(/^#\//, '').split('/').reduce((node: any, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Schema;

const Ajv = Ajv2020.default ?? (Ajv2020 as unknown as typeof Ajv2020.default);
let ajv: InstanceType<typeof Ajv>;

interface Generated {
  path: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body?: unknown;
}

/** The value a query parameter sends (form style: arrays comma-joined). */
const queryValue = (value: unknown) => (Array.isArray(value) ? value.join(',') : String(value));

/** The base URL of a path: its own server entry (the video host, or another prefix) or the main API's. */
function baseOf(item: Record<string, any>): string {
  const url: string | undefined = item.servers?.[0]?.url;
  if (url === undefined) return `${server.url}/api/v1`;
  if (url === '{videoUrl}') return server.videoUrl;
  return `${server.url}${url}`;
}

async function send(op: string, pathTemplate: string, method: string, base: string, g: Generated) {
  const path = pathTemplate.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(g.path[name]!));
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(g.query)) if (v !== undefined) search.append(k, queryValue(v));
  const url = `${base}${path}${search.size ? `?${search}` : ''}`;
  const headers: Record<string, string> = { authorization: `Bearer ${tenant.accessToken}`, ...g.headers };
  let body: string | undefined;
  if (g.body !== undefined) {
    body = JSON.stringify(g.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(url, { method: method.toUpperCase(), headers, body });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : undefined;
  if (res.status >= 500) throw new Error(`${op} answered ${res.status}: ${text.slice(0, 400)}\nrequest: ${JSON.stringify(g).slice(0, 600)}`);
  checkContract(url, method, res.status, parsed);
  return { status: res.status, body: parsed };
}

const NUM_RUNS = 20;

/** A generated body as a form sends it: each field's value as text. */
const formOf = (body: unknown) =>
  body !== null && typeof body === 'object' && !Array.isArray(body)
    ? new URLSearchParams(Object.entries(body).filter(([, v]) => v !== undefined).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString()
    : String(body);

/**
 * The token endpoints (they authenticate a client, not a bearer) and the authorization server
 * metadata: bodies generated from the document, valid and broken, sent in its first media type
 * with no credentials. No schema generates a client's secret, so acceptance is their own tests'
 * business (test/auth); here every answer must be documented and valid, and none a 5xx.
 */
async function fuzzWithoutBearer(op: string, path: string, method: string, base: string, operation: Record<string, any>) {
  const content = (operation.requestBody?.content ?? {}) as Record<string, { schema: Schema }>;
  const type = content['application/json'] ? 'application/json' : Object.keys(content)[0];
  const schema = type ? content[type]!.schema : undefined;
  const bodyArb: fc.Arbitrary<unknown> = schema
    ? fc.oneof(arbitraryFor(schema, resolve), arbitraryFor(schema, resolve).chain((body) => breakValue(body, schema)))
    : fc.constant(undefined);
  await fc.assert(
    fc.asyncProperty(bodyArb, async (body) => {
      const url = `${base}${path}`;
      const init: RequestInit = { method: method.toUpperCase() };
      if (body !== undefined) {
        init.headers = { 'content-type': type! };
        init.body = type === 'application/json' ? JSON.stringify(body) : formOf(body);
      }
      const res = await fetch(url, init);
      const text = await res.text();
      if (res.status >= 500) throw new Error(`${op} answered ${res.status}: ${text.slice(0, 400)}\nbody: ${String(init.body).slice(0, 600)}`);
      checkContract(url, method, res.status, text ? JSON.parse(text) : undefined);
    }),
    { numRuns: NUM_RUNS },
  );
}

describe('requests generated from the OpenAPI document', () => {
  const ids: { callIds: string[]; messageIds: string[] } = { callIds: [], messageIds: [] };

  beforeAll(async () => {
    tenant = await server.tenant({ scopes: [...scopes], rate: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 } });
    doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as typeof doc;
    ajv = new Ajv({ strict: false, allErrors: false });
    (addFormats.default ?? (addFormats as unknown as typeof addFormats.default))(ajv);
    ajv.addSchema(doc, 'openapi');
    await importScheduling(server, tenant.appId, [
      agent(1, 'UTC', everyDay('00:00', '24:00')),
      ...[1, 2, 3].map((n) => importedCall(n, 1, futureDay(n + 1, 10).toISOString())),
    ]);
    ids.callIds = [1, 2, 3].map(callIdOf);
    await importAnalytics(server, tenant.appId, [message(1), message(2)]);
    ids.messageIds = [message(1).id, message(2).id];
  });

  it('answer every generated request within the document; accept every valid one but for the listed rules', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      ['get', 'post', 'patch', 'delete'].filter((m) => item[m]).map((m) => ({ path, method: m, operation: item[m], base: baseOf(item) })),
    );
    const tally: Record<string, { valid: number; accepted: number; invalid: number }> = {};
    for (const { path, method, operation, base } of operations) {
      const op = `${method.toUpperCase()} ${path}`;
      if (!(operation.security ?? []).some((s: Record<string, unknown>) => 'bearerAuth' in s)) {
        tally[op] = { valid: 0, accepted: 0, invalid: 0 };
        await fuzzWithoutBearer(op, path, method, base, operation);
        continue;
      }
      const params = (operation.parameters ?? []) as { name: string; in: string; required: boolean; schema: Schema }[];
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      const known: Record<string, string[]> = { id: path.includes('scheduled-calls') ? ids.callIds : ids.messageIds, callId: [] };

      const pathArb = fc.record(
        Object.fromEntries(
          params
            .filter((p) => p.in === 'path')
            .map((p) => [p.name, p.name === 'appId' ? fc.constant(tenant.appId) : fc.oneof(arbitraryFor(p.schema, resolve) as fc.Arbitrary<string>, ...(known[p.name]?.length ? [fc.constantFrom(...known[p.name]!)] : []))]),
        ),
      ) as fc.Arbitrary<Record<string, string>>;
      // A cursor comes from a previous page (it is signed): a generated one is always refused, so
      // it is left out of the valid requests (the broken ones still send garbage in it).
      const generatedQuery = params.filter((p) => p.in === 'query' && p.name !== 'cursor');
      const queryArb = fc.record(
        Object.fromEntries(generatedQuery.map((p) => [p.name, arbitraryFor(p.schema, resolve)])),
        { requiredKeys: params.filter((p) => p.in === 'query' && p.required).map((p) => p.name) as never[] },
      ) as fc.Arbitrary<Record<string, unknown>>;
      const headerArb = fc.record(
        Object.fromEntries(params.filter((p) => p.in === 'header').map((p) => [p.name, arbitraryFor(p.schema, resolve)])),
        { requiredKeys: [] },
      ) as fc.Arbitrary<Record<string, string>>;
      const requestArb = fc.record({
        path: pathArb,
        query: queryArb,
        headers: headerArb,
        body: bodySchema ? arbitraryFor(bodySchema, resolve) : fc.constant(undefined),
      }) as fc.Arbitrary<Generated>;

      const isValid = (g: Generated) =>
        params.every((p) => {
          const value = p.in === 'path' ? g.path[p.name] : p.in === 'query' ? g.query[p.name] : g.headers[p.name];
          if (value === undefined) return !p.required;
          return ajv.validate(p.schema, value);
        }) && (!bodySchema || ajv.validate(bodySchema.$ref ? { $ref: `openapi${bodySchema.$ref}` } : bodySchema, g.body));

      const counts = (tally[op] = { valid: 0, accepted: 0, invalid: 0 });
      // Besides the generated runs, the least request (no query, an empty body) where the path
      // needs no id but the app's: many filters' random values are refused by one rule or
      // another, and this keeps the happy-path checks below from hanging on a lucky draw.
      const pathNames = params.filter((p) => p.in === 'path').map((p) => p.name);
      const least: Generated[] = pathNames.every((name) => name === 'appId')
        ? [{ path: pathNames.length ? { appId: tenant.appId } : {}, query: {}, headers: {}, body: bodySchema ? {} : undefined }]
        : [];
      await fc.assert(
        fc.asyncProperty(requestArb, async (g) => {
          const res = await send(op, path, method, base, g);
          if (!isValid(g)) {
            counts.invalid++;
            return;
          }
          counts.valid++;
          if (res.status < 300) {
            counts.accepted++;
            return;
          }
          const listed = [...anyOperation, ...(rules[op] ?? [])].find((rule) => matches(rule, res.status, res.body));
          if (!listed) throw new Error(`${op}: a request the document calls valid got ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}\nrequest: ${JSON.stringify(g).slice(0, 800)}`);
        }),
        { numRuns: NUM_RUNS, examples: least.map((g) => [g] as [Generated]) },
      );

      // Broken requests: the answer is still a documented status with a documented body.
      const brokenArb = requestArb.chain((g) =>
        fc.oneof(
          ...(bodySchema ? [breakValue(g.body, bodySchema).map((body) => ({ ...g, body }))] : []),
          ...(params.some((p) => p.in === 'query') ? [fc.constantFrom(...params.filter((p) => p.in === 'query').map((p) => p.name)).map((name) => ({ ...g, query: { ...g.query, [name]: 'ü\u0000-1' } }))] : []),
          fc.constant({ ...g, query: { ...g.query, unknownParameter: '1' } }),
        ),
      );
      await fc.assert(
        fc.asyncProperty(brokenArb, async (g) => {
          const res = await send(op, path, method, base, g);
          if (!isValid(g)) counts.invalid++;
          expect(res.status).toBeLessThan(500);
        }),
        { numRuns: Math.floor(NUM_RUNS / 2) },
      );
    }
    expect(Object.keys(tally).sort()).toEqual(operations.map(({ path, method }) => `${method.toUpperCase()} ${path}`).sort());
    // The generator reaches every operation's happy path somewhere, and far from only refusals.
    const totals = Object.values(tally).reduce((a, t) => ({ valid: a.valid + t.valid, accepted: a.accepted + t.accepted }), { valid: 0, accepted: 0 });
    expect(totals.accepted).toBeGreaterThan(totals.valid / 4);
    for (const op of ['GET /analytics/{appId}/messages', 'POST /analytics/{appId}/campaigns/search', 'GET /analytics/{appId}/messages/{id}', 'GET /video/{appId}/scheduled-calls/{id}', 'POST /oauth/revoke']) {
      expect(tally[op]?.accepted, op).toBeGreaterThan(0);
    }
  }, 240_000);
});
