import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { createMainApp, createVideoApp } from '../../src/http/app.js';
import { buildOpenApiDocument, openApiPath } from '../../src/openapi/document.js';
import { prepareRoute } from '../../src/rest/adapter.js';
import { restRoutes, videoHostRoutes } from '../../src/rest/routes.js';
import { checkContract } from '../helpers/contract.js';
import { request } from '../helpers/http.js';
import { useServer } from '../helpers/use-server.js';

const { server } = useServer();

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { securitySchemes: Record<string, any> };
};

const methods = ['get', 'post', 'put', 'patch', 'delete'];
/** The standard OAuth endpoints at the listener root: path items with a server of their own on the main host. */
const isRootItem = (item: Record<string, any>) => item.servers !== undefined && item.servers[0].url !== '{videoUrl}';
const operationsOf = (doc: Doc) =>
  Object.entries(doc.paths)
    .filter(([, item]) => !isRootItem(item))
    .flatMap(([path, item]) => methods.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${path}`));
/** Root operations by their full path (server path + path). */
const rootOperationsOf = (doc: Doc) =>
  Object.entries(doc.paths)
    .filter(([, item]) => isRootItem(item))
    .flatMap(([path, item]) => methods.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${new URL(item.servers[0].url, 'http://x').pathname}${path}`));

describe('GET /api/v1/openapi.json', () => {
  it('is served without a token, as JSON, and is what the generator builds', async () => {
    const res = await request(`${server.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    const built = buildOpenApiDocument({ schema, routes: restRoutes, videoRoutes: videoHostRoutes });
    expect(res.body.paths).toEqual(built.paths);
  });

  it('passes an OpenAPI 3.1 schema validator', async () => {
    const res = await request(`${server.url}/api/v1/openapi.json`);
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has every mounted REST route of both listeners, and nothing else', async () => {
    const doc = (await request(`${server.url}/api/v1/openapi.json`)).body as Doc;
    const main = createMainApp(server.runtime, schema, restRoutes)
      .routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/v1/') && r.path !== '/api/v1/openapi.json')
      .map((r) => `${r.method} ${openApiPath(r.path.slice('/api/v1'.length))}`);
    const video = createVideoApp(server.runtime, schema)
      .routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/'))
      .map((r) => `${r.method} ${openApiPath(r.path)}`);
    const mounted = [...new Set([...main, ...video])].sort();
    expect(mounted.length).toBeGreaterThanOrEqual(19);
    expect(operationsOf(doc).sort()).toEqual(mounted);
    const rootPaths = ['/oauth/token', '/oauth/revoke', '/.well-known/oauth-authorization-server'];
    const rootMounted = createMainApp(server.runtime, schema, restRoutes)
      .routes.filter((r) => r.method !== 'ALL' && rootPaths.includes(r.path))
      .map((r) => `${r.method} ${r.path}`);
    expect(rootOperationsOf(doc).sort()).toEqual([...new Set(rootMounted)].sort());
    expect(rootOperationsOf(doc)).toHaveLength(3);
    // The v1 paths, spelled out, so a route dropped from both the app and the document is caught too.
    for (const op of [
      'POST /oauth/token',
      'POST /oauth/revoke',
      'GET /analytics/{appId}/messages',
      'GET /analytics/{appId}/messages/{id}',
      'GET /analytics/{appId}/campaigns',
      'POST /analytics/{appId}/campaigns/search',
      'GET /analytics/{appId}/templates',
      'GET /analytics/{appId}/templates/{templateId}',
      'GET /analytics/{appId}/tags',
      'GET /analytics/{appId}/tags/{tag}/stats',
      'GET /analytics/{appId}/metrics/daily',
      'GET /analytics/{appId}/metrics/summary',
      'GET /video/{appId}/availability',
      'GET /video/{appId}/scheduled-calls',
      'POST /video/{appId}/scheduled-calls',
      'GET /video/{appId}/scheduled-calls/{id}',
      'PATCH /video/{appId}/scheduled-calls/{id}',
      'DELETE /video/{appId}/scheduled-calls/{id}',
      'POST /messaging/{appId}/messages',
      'POST /messaging/{appId}/inbound',
      'GET /api/calls/{callId}',
    ]) {
      expect(operationsOf(doc)).toContain(op);
    }
  });

  it('names the scope of every operation; bearer JWT and client credentials schemes', async () => {
    const doc = (await request(`${server.url}/api/v1/openapi.json`)).body as Doc;
    const scopeOf = (path: string, method: string) => doc.paths[path]![method]['x-required-scope'];
    expect(scopeOf('/oauth/revoke', 'post')).toBe('oauth:revoke');
    expect(scopeOf('/analytics/{appId}/messages', 'get')).toBe('messages:read');
    expect(scopeOf('/analytics/{appId}/messages/{id}', 'get')).toBe('messages:read');
    expect(scopeOf('/analytics/{appId}/campaigns/search', 'post')).toBe('campaigns:read');
    expect(scopeOf('/analytics/{appId}/templates', 'get')).toBe('analytics:read');
    expect(scopeOf('/analytics/{appId}/metrics/daily', 'get')).toBe('analytics:read');
    expect(scopeOf('/video/{appId}/availability', 'get')).toBe('scheduling:read');
    expect(scopeOf('/video/{appId}/scheduled-calls/{id}', 'patch')).toBe('scheduling:write');
    expect(scopeOf('/video/{appId}/scheduled-calls/{id}', 'delete')).toBe('scheduling:write');
    expect(scopeOf('/messaging/{appId}/messages', 'post')).toBe('messages:send');
    expect(scopeOf('/messaging/{appId}/inbound', 'post')).toBe('messages:ingest');
    expect(scopeOf('/api/calls/{callId}', 'get')).toBe('video:read');
    for (const op of operationsOf(doc).filter((o) => o !== 'POST /oauth/token')) {
      const [method, path] = op.split(' ') as [string, string];
      const operation = doc.paths[path]![method.toLowerCase()];
      expect(operation.security, op).toEqual([{ bearerAuth: [operation['x-required-scope']] }, { oauth2: [operation['x-required-scope']] }]);
      expect(operation.responses['401'], op).toBeDefined();
      expect(operation.responses['500'], op).toBeDefined();
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    // Swagger UI's Authorize speaks RFC 6749 to the standard endpoint, not the enveloped v1 one.
    expect(doc.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe('/oauth/token');
    expect(doc.paths['/api/calls/{callId}']!.servers[0].url).toBe('{videoUrl}');
  });

  it('states query parameters with the rules the routes validate with (zod)', async () => {
    const doc = (await request(`${server.url}/api/v1/openapi.json`)).body as Doc;
    const params = doc.paths['/analytics/{appId}/messages']!.get.parameters as any[];
    const limit = params.find((p) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200 } });
    expect(params.find((p) => p.name === 'status').schema.enum).toContain('flow_handled');
    // `?search=` is read as no search: the document allows the empty value its minLength would refuse.
    expect(params.find((p) => p.name === 'search')).toMatchObject({ allowEmptyValue: true, schema: { minLength: 1 } });
    const tenant = await server.tenant({ scopes: ['messages:read'] });
    const empty = await request(`${server.url}/api/v1/analytics/${tenant.appId}/messages?search=`, { token: tenant.accessToken });
    expect(empty.status).toBe(200);
    const availability = doc.paths['/video/{appId}/availability']!.get.parameters as any[];
    expect(availability.find((p) => p.name === 'durationMinutes')).toMatchObject({ required: true, schema: { minimum: 5, maximum: 480 } });
    // explain picks the root field; the answer's `rejected` is described, present only with it.
    const explain = availability.find((p) => p.name === 'explain');
    expect(explain).toMatchObject({ in: 'query', required: false, schema: { type: 'boolean', default: false } });
    expect(explain.schema.description).toMatch(/data\.rejected/);
    const slotsAnswer = doc.paths['/video/{appId}/availability']!.get.responses['200'].content['application/json'].schema.properties.data;
    expect(slotsAnswer.required).toEqual(['slots']);
    expect(slotsAnswer.properties.rejected.items).toMatchObject({
      required: ['startUtc', 'endUtc', 'agentId', 'reasons'],
      properties: { reasons: { items: { required: ['code', 'id', 'kind'] } } },
    });
    const send = doc.paths['/messaging/{appId}/messages']!.post;
    expect(send.parameters.find((p: any) => p.name === 'Idempotency-Key').in).toBe('header');
    expect(send.requestBody.content['application/json'].schema.oneOf).toHaveLength(3);
    const book = doc.paths['/video/{appId}/scheduled-calls']!.post.requestBody.content['application/json'].schema;
    expect(book).toMatchObject({ additionalProperties: false, required: ['scheduledAtUtc', 'durationMinutes', 'guestName'] });
    expect(book.properties.durationMinutes).toMatchObject({ minimum: 5, maximum: 480 });
    expect(book.properties.guestEmail.anyOf[0]).toMatchObject({ format: 'email', maxLength: 320 });
  });
});

describe('the contract helper', () => {
  it('lists as query parameters exactly the names each route takes from the query string', async () => {
    const doc = (await request(`${server.url}/api/v1/openapi.json`)).body as Doc;
    for (const route of restRoutes) {
      const operation = doc.paths[openApiPath(route.path)]![route.method.toLowerCase()];
      const documented = (operation.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name).sort();
      const prepared = prepareRoute(schema, route);
      expect(documented, `${route.method} ${route.path}`).toEqual([...prepared.queryNames].sort());
    }
  });

  it('fails a documented response whose body is off the document, or whose status is not listed', () => {
    const url = 'http://127.0.0.1:1/api/v1/analytics/00000000-0000-4000-8000-000000000000/tags';
    expect(() => checkContract(url, 'GET', 200, { data: ['a'], meta: { timestamp: new Date().toISOString() } })).not.toThrow();
    expect(() => checkContract(url, 'GET', 200, { data: [1] })).toThrow(/does not match/);
    expect(() => checkContract(url, 'GET', 418, {})).toThrow(/does not list/);
    const availability = 'http://127.0.0.1:1/api/v1/video/00000000-0000-4000-8000-000000000000/availability';
    const candidate = { startUtc: '2026-03-09T09:00:00.000Z', endUtc: '2026-03-09T10:00:00.000Z', agentId: 'a' };
    expect(() => checkContract(availability, 'GET', 200, { data: { slots: [], rejected: [{ ...candidate, reasons: [{ code: 'blocked', id: 'x', kind: null }] }] } })).not.toThrow();
    expect(() => checkContract(availability, 'GET', 200, { data: { slots: [], rejected: [candidate] } })).toThrow(/does not match/);
    // Strict enough to catch a null where the service never answers one, and a value off an enum.
    const messages = 'http://127.0.0.1:1/api/v1/analytics/00000000-0000-4000-8000-000000000000/messages';
    const item = {
      id: 'm1', source: 's', destination: 'd', provider_from: '1', provider_to: '2', channel: 'whatsapp', direction: 'inbound',
      message_type: 'text', user_phone: '4477', conversation_key: 'c', provider_message_id: 'p', status: 'sent',
      sent_at: null, failed_at: null, error_message: null, created_at: new Date().toISOString(),
    };
    const page = (data: unknown) => ({ data: [data], meta: { timestamp: new Date().toISOString() }, pagination: { limit: 1, hasMore: false, nextCursor: null } });
    expect(() => checkContract(messages, 'GET', 200, page(item))).not.toThrow();
    expect(() => checkContract(messages, 'GET', 200, page({ ...item, id: null }))).toThrow(/does not match/);
    expect(() => checkContract(messages, 'GET', 200, page({ ...item, status: 'SENT' }))).toThrow(/does not match/);
    expect(() => checkContract(messages, 'GET', 200, page({ ...item, direction: null }))).toThrow(/does not match/);
    // Not a documented operation: not checked.
    expect(() => checkContract('http://127.0.0.1:1/healthz', 'GET', 200, {})).not.toThrow();
  });
});

describe('the document is precise', () => {
  it('answers null only where the schema can: every nullable response field is one the GraphQL type leaves nullable', async () => {
    const doc = (await request(`${server.url}/api/v1/openapi.json`)).body as Doc;
    const nullable: string[] = [];
    const walk = (schema: any, at: string) => {
      if (!schema || typeof schema !== 'object') return;
      const types = Array.isArray(schema.type) ? schema.type : [];
      if (types.includes('null') || (schema.anyOf ?? []).some((s: any) => s.type === 'null')) nullable.push(at);
      for (const [key, value] of Object.entries(schema.properties ?? {})) walk(value, `${at}.${key}`);
      if (schema.items) walk(schema.items, `${at}[]`);
      for (const branch of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) walk(branch, at);
    };
    const list = doc.paths['/analytics/{appId}/messages']!.get.responses['200'].content['application/json'].schema;
    walk(list, '');
    expect(nullable.sort()).toEqual(['.data[].error_message', '.data[].failed_at', '.data[].sent_at']);
    const tags = doc.paths['/analytics/{appId}/tags']!.get.responses['200'].content['application/json'].schema;
    expect(tags.properties.data).toEqual({ type: 'array', items: { type: 'string' } });
    const call = doc.paths['/video/{appId}/scheduled-calls/{id}']!.get.responses['200'].content['application/json'].schema.properties.data.properties.call;
    expect(call.properties.status.enum.sort()).toEqual(['cancelled', 'completed', 'no_show', 'scheduled']);
    expect(call.properties.id).toMatchObject({ type: 'string', format: 'uuid' });
  });

  it('states request rules: unknown keys refused, day and instant formats with the year range, metadata object or string', async () => {
    const doc = (await request(`${server.url}/api/v1/openapi.json`)).body as any;
    const bodyOf = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
    expect(bodyOf('/oauth/revoke', 'post')).toMatchObject({ additionalProperties: false, required: ['token'] });
    expect(bodyOf('/video/{appId}/scheduled-calls/{id}', 'delete').additionalProperties).toBe(false);
    const day = doc.paths['/analytics/{appId}/messages'].get.parameters.find((p: any) => p.name === 'startDate').schema;
    expect(day.format).toBe('date');
    expect(new RegExp(day.pattern).test('2026-03-08')).toBe(true);
    expect(new RegExp(day.pattern).test('9999-01-01')).toBe(false);
    expect(new RegExp(day.pattern).test('1899-12-31')).toBe(false);
    const metrics = doc.paths['/analytics/{appId}/metrics/daily'].get;
    expect(metrics.parameters.find((p: any) => p.name === 'startDate').schema.format).toBe('date-time');
    expect(metrics.description).toMatch(/400 days/);
    const flow = bodyOf('/messaging/{appId}/messages', 'post').oneOf[0];
    expect(flow.properties.metadata.type).toEqual(['object', 'string']);
    expect(flow.properties.interactive.properties.body.properties.text['x-max-characters']).toBe(1024);
    const inbound = bodyOf('/messaging/{appId}/inbound', 'post');
    expect(inbound.oneOf[0].properties.timestamp).toMatchObject({ format: 'date-time' });
  });

  it('has a webhooks section: each event type the service sends, with the Standard Webhooks headers', async () => {
    const doc = (await request(`${server.url}/api/v1/openapi.json`)).body as any;
    const { deliveryTypes } = await import('../../src/webhooks/patterns.js');
    const { eventTypes } = await import('../../src/events/types.js');
    expect(Object.keys(doc.webhooks).sort()).toEqual([...deliveryTypes].sort());
    // Every catalogue type, each legacy scheduled.* type and the test delivery.
    for (const type of [...eventTypes, 'scheduled.cancelled', 'scheduled.reminder', 'webhook.ping']) expect(doc.webhooks[type]?.post, type).toBeDefined();
    const disabled = doc.webhooks['webhook_endpoint.disabled'].post.requestBody.content['application/json'].schema;
    expect(disabled.properties.data.properties.resource.$ref).toBe('#/components/schemas/WebhookEndpointDisabling');
    expect(doc.components.schemas.WebhookEndpointDisabling.properties.reason.enum).toEqual(['gone', 'consecutive_failures']);
    const cancelled = doc.webhooks['scheduled.cancelled'].post;
    expect(cancelled.parameters.map((p: any) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(cancelled.requestBody.content['application/json'].schema.properties.type.const).toBe('scheduled.cancelled');
  });
});

describe('GET /docs', () => {
  it('serves the reference page and its assets from this process', async () => {
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/init.js']) {
      const res = await fetch(`${server.url}${asset}`);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect((await request(`${server.url}/docs/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
