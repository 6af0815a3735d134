import {
  getNamedType,
  isInputObjectType,
  Kind,
  typeFromAST,
  valueFromAST,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { z } from 'zod';
import { scopes, type Scope } from '../auth/scopes.js';
import { CLIENT_ID_MAX_LENGTH, CLIENT_SECRET_MAX_LENGTH } from '../auth/secrets.js';
import { requiredScope } from '../graphql/field-scope.js';
import { detailCodes, errorStatus, slotRefusalCodes, type ErrorType } from '../errors/app-error.js';
import { prepareRoute, type RestRoute } from '../rest/adapter.js';
import { instantJsonSchema } from '../time/instant-input.js';
import { createCallInput, updateCallInput } from '../scheduling/fields.js';
import { flowMessageSchema, productListMessageSchema, templateMessageSchema } from '../sends/payloads.js';
import { envelopes } from './envelopes.js';
import { withIdempotencyKeys } from './idempotency.js';
import { addStandardOAuth, STANDARD_TOKEN_URL } from './oauth.js';
import { checkRefinements } from './refinements.js';
import { webhookSchemas, webhooksSection } from './webhooks.js';
import { inputTypeSchema, nonNull, selectionSchema, type JsonSchema } from './graphql-schema.js';

// OpenAPI 3.1 for the REST layer, generated from the same route definitions the server mounts
// (src/rest/routes.ts and the video host's routes): parameters from each route's GraphQL
// variables and path, their rules from the zod schemas the schema's arguments validate with
// (Pothos plugin-zod keeps them on each argument), responses from each document's selection.

export interface OpenApiOptions {
  schema: GraphQLSchema;
  routes: readonly RestRoute[];
  videoRoutes: readonly RestRoute[];
  /** Absolute base of the main listener, e.g. https://api.example.com (else relative). */
  publicUrl?: string;
  /** Base URL of the video lookup host. */
  videoUrl?: string;
  version?: string;
}

type Operation = Record<string, unknown>;

/** Zod schema → JSON Schema, input side; dates (from DateTime arguments) are ISO strings. */
export function zodJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: (ctx) => {
      const def = (ctx.zodSchema as unknown as { _zod: { def: { type: string } } })._zod.def;
      if (def.type === 'date') Object.assign(ctx.jsonSchema, instantJsonSchema);
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Argument schemas that zod cannot state by themselves (a transform over unknown input). */
const argumentOverrides: Record<string, () => JsonSchema> = {
  'sendMessage.message': () => ({
    description: 'A Flow or Product List payload (by `interactive.type`) or a template send.',
    oneOf: [
      { title: 'Flow message', ...zodJsonSchema(flowMessageSchema) },
      { title: 'Product List message', ...zodJsonSchema(productListMessageSchema) },
      { title: 'Template message', ...zodJsonSchema(templateMessageSchema) },
    ],
  }),
};

/**
 * Input objects whose resolvers validate with a zod schema of their own (not attached to the
 * GraphQL type): the document states that schema's rules, with the GraphQL field descriptions.
 */
const inputObjectSchemas: Record<string, z.ZodType> = {
  CreateScheduledCallInput: createCallInput,
  UpdateScheduledCallInput: updateCallInput,
};

function inputObjectSchema(type: GraphQLInputObjectType, zodSchema: z.ZodType): JsonSchema {
  const json = zodJsonSchema(zodSchema);
  const fields = type.getFields();
  const properties = json.properties as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(properties)) {
    if (!fields[name]) throw new Error(`OpenAPI: ${type.name} has no field ${name} (its zod schema does)`);
    properties[name] = withDescription(property, fields[name].description);
  }
  // GraphQL input coercion refuses unknown fields.
  return withDescription({ ...json, additionalProperties: false }, type.description);
}

interface ValidatedExtensions {
  pothosOptions?: { validate?: { schema?: z.ZodType }; authScopes?: unknown };
}

/** The JSON Schema of a root-field argument: its zod rules where it has them, else its GraphQL type. */
function argumentSchema(field: GraphQLField<unknown, unknown>, arg: GraphQLArgument | undefined, type: GraphQLInputType): JsonSchema {
  const fallback = inputTypeSchema(type);
  if (!arg) return fallback;
  const override = argumentOverrides[`${field.name}.${arg.name}`];
  if (override) return override();
  const named = getNamedType(arg.type);
  const ownSchema = isInputObjectType(named) ? inputObjectSchemas[named.name] : undefined;
  if (ownSchema && isInputObjectType(named)) return inputObjectSchema(named, ownSchema);
  const zodSchema =
    (arg.extensions as ValidatedExtensions).pothosOptions?.validate?.schema ??
    (isInputObjectType(named) ? (named.extensions as ValidatedExtensions).pothosOptions?.validate?.schema : undefined);
  if (!zodSchema) return withDescription(fallback, arg.description);
  const json = zodJsonSchema(zodSchema);
  if (Object.keys(json).length === 0) return withDescription(fallback, arg.description);
  return withDescription(nonNull(json), arg.description);
}

const withDescription = (schema: JsonSchema, description: string | null | undefined) =>
  description && !schema.description ? { ...schema, description } : schema;

/** `/analytics/:appId/tags/:tag/stats` → `/analytics/{appId}/tags/{tag}/stats`. */
export const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const pathParams = (honoPath: string) => [...honoPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

/** Which variable each root-field argument is bound to ($var → argument). */
function argumentsByVariable(operation: OperationDefinitionNode, field: GraphQLField<unknown, unknown>): Map<string, GraphQLArgument> {
  const selection = operation.selectionSet.selections[0];
  const map = new Map<string, GraphQLArgument>();
  if (!selection || selection.kind !== Kind.FIELD) return map;
  for (const argument of selection.arguments ?? []) {
    const value: ValueNode = argument.value;
    if (value.kind !== Kind.VARIABLE) continue;
    const arg = field.args.find((a) => a.name === argument.name.value);
    if (arg) map.set(value.name.value, arg);
  }
  return map;
}

interface Variable {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

function errorTypesFor(route: RestRoute, rootErrorType: ErrorType, hasIds: boolean, host: 'main' | 'video'): Partial<Record<ErrorType, true>> {
  // Any route that reads the database can meet an outage: 503 service_unavailable (Retry-After).
  const types: Partial<Record<ErrorType, true>> = { unauthorized: true, rate_limit_exceeded: true, server_error: true, service_unavailable: true };
  if (host === 'video') return { ...types, forbidden: true, not_found: true };
  types.forbidden = true;
  types[rootErrorType] = true;
  types.validation_error = true;
  if (route.body) {
    types[route.invalidJson ?? 'invalid_request'] = true;
    types.payload_too_large = true;
  }
  if (hasIds) types.not_found = true;
  if (route.method !== 'GET' && route.path.startsWith('/video/')) types.conflict = true;
  if (route.path.startsWith('/messaging/')) {
    types.not_found = true;
    if (route.path.endsWith('/messages')) Object.assign(types, { conflict: true, outside_service_window: true, no_matching_products: true, service_unavailable: true });
  }
  return types;
}

/** One response per status, listing the error types it can carry. */
function errorResponses(types: Partial<Record<ErrorType, true>>, host: 'main' | 'video'): Record<string, unknown> {
  const byStatus = new Map<number, ErrorType[]>();
  for (const type of Object.keys(types) as ErrorType[]) {
    const status = type === 'invalid_client' ? 400 : errorStatus[type];
    byStatus.set(status, [...(byStatus.get(status) ?? []), type]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const envelope = host === 'video' ? '#/components/schemas/VideoHostError' : '#/components/schemas/Error';
    responses[String(status)] = {
      description: `Error: ${list.map((t) => `\`${t}\``).join(', ')}`,
      headers: status === 429 ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...requestIdHeader } : requestIdHeader,
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: envelope },
              // Both envelopes carry the type at error.type.
              { type: 'object', properties: { error: { type: 'object', properties: { type: { enum: list } } } } },
            ],
          },
        },
      },
    };
  }
  return responses;
}

const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
const rateLimitHeaders = Object.fromEntries(
  ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Window'].map((h) => [h, { $ref: `#/components/headers/${h}` }]),
);

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

function routeOperation(schema: GraphQLSchema, route: RestRoute, host: 'main' | 'video', usedIds: Set<string>): Operation {
  const prepared = prepareRoute(schema, route);
  const { operation } = prepared;
  const rootType = operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  const selection = operation.selectionSet.selections[0];
  if (!selection || selection.kind !== Kind.FIELD) throw new Error(`OpenAPI: ${route.method} ${route.path} selects no field`);
  const field = rootType.getFields()[selection.name.value]!;
  const byVariable = argumentsByVariable(operation, field);

  const variables = new Map<string, Variable>();
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType;
    let json = argumentSchema(field, byVariable.get(name), type);
    // A variable no argument takes (one that picks a root field) is described by the route.
    if (!byVariable.has(name)) json = withDescription(json, route.parameterDescriptions?.[name]);
    if (definition.defaultValue) json = { ...json, default: valueFromAST(definition.defaultValue, type) };
    variables.set(name, {
      name,
      required: definition.type.kind === Kind.NON_NULL_TYPE && !definition.defaultValue,
      schema: json,
    });
  }

  const parameters: Record<string, unknown>[] = [];
  const used = new Set<string>();
  for (const name of pathParams(route.path)) {
    const variable = variables.get(name);
    if (!variable) throw new Error(`OpenAPI: ${route.path} path parameter ${name} has no variable`);
    parameters.push({ name, in: 'path', required: true, schema: variable.schema });
    used.add(name);
  }
  for (const [header, name] of Object.entries(route.headers ?? {})) {
    const variable = variables.get(name)!;
    parameters.push({ name: header, in: 'header', required: variable.required, schema: variable.schema });
    used.add(name);
  }

  let requestBody: JsonSchema | undefined;
  let bodyRequired = false;
  const aliasOf = new Map(Object.entries(route.queryAliases ?? {}).map(([rest, variable]) => [variable, rest]));
  const queryParam = (variable: Variable) => {
    // A list variable given one value by its parameter (RestRoute.singleValueQuery) is that item.
    const single = route.singleValueQuery?.includes(variable.name) && variable.schema.type === 'array';
    const schema = single ? (variable.schema.items as JsonSchema) : variable.schema;
    const array = schema.type === 'array';
    parameters.push({
      name: aliasOf.get(variable.name) ?? variable.name,
      in: 'query',
      required: variable.required,
      // The adapter reads an empty value (`?search=`) as the parameter left out, so an empty
      // value is no breach of the schema's minLength.
      ...(variable.required ? {} : { allowEmptyValue: true }),
      schema,
      ...(array ? { style: 'form', explode: false } : {}),
    });
  };

  if (!route.body) {
    for (const variable of variables.values()) if (!used.has(variable.name)) queryParam(variable);
  } else if (route.body === 'spread') {
    const rest = [...variables.values()].filter((v) => !used.has(v.name));
    requestBody = {
      type: 'object',
      properties: {
        ...Object.fromEntries(rest.map((v) => [v.name, v.schema])),
        ...Object.fromEntries(Object.entries(route.ignoredBodyKeys ?? {}).map(([key, schema]) => [key, { ...zodJsonSchema(schema), description: 'Accepted and ignored.' }])),
      },
      ...(rest.some((v) => v.required) ? { required: rest.filter((v) => v.required).map((v) => v.name) } : {}),
      // The adapter refuses any other key (`unrecognized`).
      additionalProperties: false,
    };
    bodyRequired = rest.some((v) => v.required);
    // The adapter reads the same names from the query string (DELETE's `reason`: a DELETE may carry no body).
    if (route.method === 'DELETE') for (const v of rest) queryParam({ ...v, required: false });
  } else if ('variable' in route.body) {
    const variable = variables.get(route.body.variable)!;
    requestBody = variable.schema;
    bodyRequired = variable.required;
    used.add(variable.name);
    for (const v of variables.values()) if (!used.has(v.name)) queryParam(v);
  } else {
    // A nested body: each variable sits at its dotted body path.
    requestBody = { type: 'object', properties: {}, additionalProperties: false };
    for (const [name, bodyPath] of Object.entries(route.body.fieldNames)) {
      const variable = variables.get(name);
      if (!variable) continue;
      let node = requestBody;
      const parts = bodyPath.split('.');
      for (const part of parts.slice(0, -1)) {
        const props = node.properties as Record<string, JsonSchema>;
        props[part] ??= { type: 'object', properties: {}, additionalProperties: false };
        node = props[part];
      }
      (node.properties as Record<string, JsonSchema>)[parts.at(-1)!] = variable.schema;
    }
  }

  const key = `${route.method} ${route.path}`;
  const envelope = envelopes[key];
  if (!envelope) throw new Error(`OpenAPI: no response envelope for ${key} (src/openapi/envelopes.ts)`);
  const root = nonNull(selectionSchema(schema, field.type, selection.selectionSet));
  // Every root field by its response key, for a document that picks one by @include/@skip.
  const roots: Record<string, JsonSchema> = {};
  for (const other of operation.selectionSet.selections) {
    if (other.kind !== Kind.FIELD) continue;
    roots[other.alias?.value ?? other.name.value] = nonNull(selectionSchema(schema, rootType.getFields()[other.name.value]!.type, other.selectionSet));
  }
  const scope = requiredScope(field);

  let operationId = lowerFirst(operation.name?.value.replace(/^Rest/, '') ?? field.name);
  if (usedIds.has(operationId)) {
    const segment = route.path.split('/').filter((s) => s && !s.startsWith(':')).at(-1) ?? route.method.toLowerCase();
    operationId = `${segment}${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}`;
  }
  usedIds.add(operationId);

  const hasIds = pathParams(route.path).some((p) => p !== 'appId');
  return {
    operationId,
    summary: envelope.summary,
    description: [field.description, scope && !field.description?.includes(scope) ? `Requires scope \`${scope}\`.` : undefined].filter(Boolean).join('\n\n'),
    tags: [host === 'video' ? 'video host' : route.path.split('/')[1]!],
    ...(scope ? { security: [{ bearerAuth: [scope] }, { oauth2: [scope] }], 'x-required-scope': scope } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody: { required: bodyRequired, content: { 'application/json': { schema: requestBody } } } } : {}),
    responses: {
      [String(envelope.status)]: {
        description: envelope.description,
        headers: host === 'video' ? requestIdHeader : { ...requestIdHeader, ...rateLimitHeaders },
        content: { 'application/json': { schema: envelope.body(root, roots) } },
      },
      ...errorResponses(errorTypesFor(route, prepared.rootErrorType, hasIds, host), host),
    },
  };
}

const tokenRequest = z.object({
  grant_type: z.literal('client_credentials').describe('Must be `client_credentials`.'),
  client_id: z.string().min(1).max(CLIENT_ID_MAX_LENGTH).optional().describe('Required unless sent with HTTP Basic authentication.'),
  client_secret: z.string().min(1).max(CLIENT_SECRET_MAX_LENGTH).optional().describe('Required unless sent with HTTP Basic authentication.'),
});
const accessToken = z.object({
  access_token: z.string().describe('Bearer token (a JWT).'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('Lifetime in seconds.'),
});

/** POST /oauth/token runs outside the schema (src/http/token-route.ts): its operation is stated here. */
function tokenOperation(): Operation {
  const body = zodJsonSchema(tokenRequest);
  return {
    operationId: 'issueToken',
    summary: 'Issue an access token (client credentials)',
    description:
      'OAuth 2.0 client credentials (RFC 6749 4.4). JSON or form body; the client may authenticate with HTTP Basic instead of `client_id`/`client_secret`. No bearer token.',
    tags: ['oauth'],
    security: [{}, { clientBasic: [] }],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: body }, 'application/x-www-form-urlencoded': { schema: body } },
    },
    responses: {
      '200': {
        description: 'A new access token.',
        headers: { ...requestIdHeader, 'Cache-Control': { schema: { type: 'string', const: 'no-store' } } },
        content: { 'application/json': { schema: { type: 'object', properties: { data: zodJsonSchema(accessToken), meta: { $ref: '#/components/schemas/Meta' } }, required: ['data', 'meta'] } } },
      },
      ...errorResponses({ invalid_request: true, unsupported_grant_type: true, invalid_client: true, payload_too_large: true, rate_limit_exceeded: true, server_error: true }, 'main'),
      '401': {
        description: 'Error: `invalid_client` (unknown client or wrong secret)',
        headers: requestIdHeader,
        content: { 'application/json': { schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { error: { type: 'object', properties: { type: { enum: ['invalid_client'] } } } } }] } } },
      },
    },
  };
}

const errorTypes = Object.keys(errorStatus) as ErrorType[];

function components(): Record<string, unknown> {
  const header = (description: string, schema: JsonSchema) => ({ description, schema });
  return {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token from POST /oauth/token.' },
      oauth2: {
        type: 'oauth2',
        description: 'Client credentials; each operation names the scope it needs.',
        flows: {
          clientCredentials: {
            tokenUrl: STANDARD_TOKEN_URL,
            scopes: Object.fromEntries(scopes.map((s) => [s, scopeDescriptions[s]])),
          },
        },
      },
      clientBasic: { type: 'http', scheme: 'basic', description: 'Client id and secret for the token endpoint (RFC 6749 2.3.1).' },
    },
    headers: {
      'X-Request-Id': header('Request id (echoed when the request sent a valid one).', { type: 'string' }),
      'X-RateLimit-Limit': header('Maximum requests in the surfaced window.', { type: 'integer' }),
      'X-RateLimit-Remaining': header('Requests remaining in the current window.', { type: 'integer' }),
      'X-RateLimit-Reset': header('Unix epoch seconds when the surfaced window has free capacity.', { type: 'integer' }),
      'X-RateLimit-Window': header('The surfaced window.', { type: 'string', enum: ['minute', 'hour', 'day'] }),
      'Retry-After': header('Seconds until the next request is likely to succeed.', { type: 'integer' }),
    },
    schemas: {
      Meta: { type: 'object', properties: { timestamp: { type: 'string', format: 'date-time' } }, required: ['timestamp'] },
      Pagination: {
        type: 'object',
        properties: { limit: { type: 'integer' }, hasMore: { type: 'boolean' }, nextCursor: { type: ['string', 'null'] } },
        required: ['limit', 'hasMore', 'nextCursor'],
      },
      ErrorDetail: {
        type: 'object',
        properties: { field: { type: 'string', description: 'Dotted path of the offending input.' }, message: { type: 'string' }, code: { type: 'string', enum: [...detailCodes, ...slotRefusalCodes] } },
        required: ['field', 'message', 'code'],
      },
      Error: {
        type: 'object',
        description: 'The main API error body.',
        properties: {
          error: {
            type: 'object',
            properties: {
              type: { type: 'string', enum: errorTypes },
              message: { type: 'string' },
              timestamp: { type: 'string', format: 'date-time' },
              details: { type: 'array', items: { $ref: '#/components/schemas/ErrorDetail' }, description: 'Present for validation failures.' },
            },
            required: ['type', 'message', 'timestamp'],
          },
        },
        required: ['error'],
      },
      VideoHostError: {
        type: 'object',
        description: 'The video host error body.',
        properties: {
          ok: { const: false },
          error: { type: 'object', properties: { type: { type: 'string', enum: errorTypes }, message: { type: 'string' } }, required: ['type', 'message'] },
        },
        required: ['ok', 'error'],
      },
      ...webhookSchemas,
    },
  };
}

const scopeDescriptions: Record<Scope, string> = {
  'oauth:revoke': 'Revoke tokens',
  'messages:read': 'Read connector messages',
  'campaigns:read': 'Read and search campaigns',
  'analytics:read': 'Read templates, tags and metrics',
  'scheduling:read': 'Read availability and scheduled calls',
  'scheduling:write': 'Create, update and cancel scheduled calls; manage agents',
  'messages:send': 'Send Flow, Product List and template messages',
  'messages:ingest': 'Submit inbound messages and status updates',
  'video:read': 'Look up video calls on the video host',
  'webhooks:write': 'Manage webhook subscriptions',
  'events:read': "Read and follow the app's event log (every event type)",
};

/** The whole document; every route of both listeners appears exactly once. */
export function buildOpenApiDocument(options: OpenApiOptions): Record<string, unknown> {
  const { schema } = options;
  checkRefinements(schema);
  const paths: Record<string, Record<string, unknown>> = {};
  const usedIds = new Set<string>();
  const add = (path: string, method: string, operation: Operation, pathItemExtras: Record<string, unknown> = {}) => {
    const item = (paths[path] ??= { ...pathItemExtras });
    if (item[method]) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} defined twice`);
    item[method] = operation;
  };
  add('/oauth/token', 'post', tokenOperation());
  for (const route of options.routes) add(openApiPath(route.path), route.method.toLowerCase(), routeOperation(schema, route, 'main', usedIds));
  const videoServers = [
    {
      url: '{videoUrl}',
      description: 'The video lookup host (its own listener, VIDEO_PORT)',
      variables: { videoUrl: { default: options.videoUrl ?? 'http://localhost:3001' } },
    },
  ];
  for (const route of options.videoRoutes) {
    add(openApiPath(route.path), route.method.toLowerCase(), routeOperation(schema, route, 'video', usedIds), { servers: videoServers });
  }
  addStandardOAuth(paths, options.publicUrl);
  return withIdempotencyKeys({
    openapi: '3.1.0',
    info: {
      title: 'Switchboard REST API',
      version: options.version ?? '1',
      description:
        'The REST compatibility layer of Switchboard: every path runs a fixed GraphQL document against the same schema as /graphql. Get a token with POST /oauth/token (client credentials), then send `Authorization: Bearer <token>`.',
    },
    servers: [{ url: `${options.publicUrl?.replace(/\/$/, '') ?? ''}/api/v1`, description: 'Main API' }],
    tags: [
      { name: 'oauth', description: 'Tokens' },
      { name: 'analytics', description: 'Messages, campaigns, templates, tags, metrics' },
      { name: 'video', description: 'Scheduling: availability and scheduled calls' },
      { name: 'messaging', description: 'Sends and inbound events' },
      { name: 'video host', description: 'The video call lookup host' },
      { name: 'webhooks', description: 'Events the service POSTs to subscribed endpoints (Standard Webhooks signatures)' },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: webhooksSection(),
    components: components(),
  }, options.routes);
}
