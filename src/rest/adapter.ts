import {
  execute,
  isListType,
  isNonNullType,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Context as HonoContext, Hono, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import type { Scope } from '../auth/scopes.js';
import { AppError, methodNotAllowedError, validationFailed, type ErrorType } from '../errors/app-error.js';
import { toAppError } from '../graphql/errors.js';
import { UUID_PATTERN, validationErrorType } from '../graphql/builder.js';
import { requiredScope } from '../graphql/field-scope.js';
import { hasOrderedRootFields } from '../graphql/ordered-root-fields.js';
import { hasVariableScalarLiterals } from '../graphql/scalar-literals.js';
import { errorResponse, serverError, timestamp } from '../errors/envelope.js';
import { zodIssuesToDetails } from '../errors/zod-details.js';
import type { HttpEnv } from '../web/hono-env.js';
import type { RequestContext } from '../runtime.js';
import type { Clock } from '../time/clock.js';
import { keyedRoute } from './idempotency.js';
import { coerceVariables, variableProblems, variableSlots, variableValues, type VariableSlot } from '../graphql/variables.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RestResult {
  status?: number;
  body: unknown;
}

/**
 * A v1 path mapped onto the schema: the route supplies a GraphQL document and shapes its
 * result into the REST envelope; auth, validation and logic run in the schema, so REST and
 * GraphQL cannot disagree.
 */
export interface RestRoute<TData = Record<string, unknown>> {
  method: Method;
  /** Hono path relative to /api/v1, e.g. /analytics/:appId/messages */
  path: string;
  /** Sent identically every time, so it is parsed and validated once, not on every request. */
  document: string;
  /**
   * How the JSON body becomes variables: 'spread' merges its keys, a variable name puts the
   * whole body there (field paths in errors are then relative to the body).
   */
  body?: 'spread' | { variable: string } | BodyMapping;
  /**
   * Keys a 'spread' body may carry that the document does not read (RFC 7009's token_type_hint on
   * revoke), each checked by its schema and then dropped; any other key that is not one of its
   * variables is refused as `unrecognized`.
   */
  ignoredBodyKeys?: Readonly<Record<string, z.ZodType>>;
  /** A 'spread' body may also come as application/x-www-form-urlencoded (RFC 7009 clients send revoke so). */
  formBody?: boolean;
  /** error.type for a body that is not JSON (it differs between endpoints). */
  invalidJson?: ErrorType;
  /** Query parameters renamed onto variables, e.g. { reason: 'queryReason' }. */
  queryAliases?: Record<string, string>;
  /**
   * List variables a query parameter gives one value of (`status` is "one of" the values):
   * the string is that one item, not split at commas, and errors name the parameter itself.
   */
  singleValueQuery?: readonly string[];
  /** Request headers passed as variables, e.g. { 'Idempotency-Key': 'idempotencyKey' }. */
  headers?: Record<string, string>;
  /**
   * What an Idempotency-Key reused with another request answers: 422 idempotency_key_reused by
   * default; the send path answers 409 conflict.
   */
  reusedKey?: 'conflict';
  /**
   * Descriptions of query parameters no argument describes (the OpenAPI document states them):
   * a variable that only picks, by @include or @skip, which root field answers.
   */
  parameterDescriptions?: Record<string, string>;
  respond: (data: TData) => RestResult;
}

/** A nested body mapped onto variables; `fieldNames` names each variable by its body path in errors. */
export interface BodyMapping {
  map: (body: Record<string, unknown>) => Record<string, unknown>;
  fieldNames: Record<string, string>;
}

export const defineRoute = <TData>(route: RestRoute<TData>) => route as unknown as RestRoute;

interface PreparedRoute {
  route: RestRoute;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  rootErrorType: 'validation_error' | 'invalid_request';
  /**
   * The document compiled once by graphql-jit: the same schema, resolvers and plugins, without
   * graphql-js walking the selection set again on every request (a large share of a list page's
   * CPU).
   */
  compiled?: CompiledQuery;
  /** The scope the root field needs (scope-auth rule), checked before the input is: 403 first. */
  scope?: Scope;
  /** The document's variables and their types. */
  variables: readonly VariableSlot[];
  /** Variables of a list type: a query parameter given more than once adds to the list. */
  listVariables: ReadonlySet<string>;
  /** The names the query string may carry (REST names, `limit` for `first`); any other is refused. */
  queryNames: ReadonlySet<string>;
  /** Variables a 'spread' body may set: the document's, less the path's parameters. */
  bodyVariables: ReadonlySet<string>;
}

export function prepareRoute(schema: GraphQLSchema, route: RestRoute): PreparedRoute {
  const document = parse(route.document);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`REST route ${route.method} ${route.path}: ${errors.map((e) => e.message).join('; ')}`);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const rootType = operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  const firstField = operation.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
  const fieldName = firstField && firstField.kind === Kind.FIELD ? firstField.name.value : '';
  const field = rootType.getFields()[fieldName];
  // A document may hold several root fields, one picked by @include/@skip (GET availability's
  // explain mode); the scope and error type checked before the input are the first's, so they
  // must be every one's.
  const rules = (name: string) => {
    const f = rootType.getFields()[name];
    return `${f ? requiredScope(f) : ''} ${validationErrorType({ parentType: rootType, fieldName: name })}`;
  };
  for (const other of operation.selectionSet.selections) {
    if (other.kind !== Kind.FIELD || rules(other.name.value) === rules(fieldName)) continue;
    throw new Error(`REST route ${route.method} ${route.path}: root fields ${fieldName} and ${other.name.value} differ in scope or error type`);
  }
  // A route's document is ours and has one root field, so graphql-jit's ordering of several
  // mutation fields (hasOrderedRootFields) never applies; checked anyway, as are JSON literals.
  const compiled = hasOrderedRootFields(document) || hasVariableScalarLiterals(schema, document) ? undefined : compileQuery(schema, document, undefined, { disablingCapturingStackErrors: true });
  const variables = variableSlots(schema, operation.variableDefinitions ?? []);
  const names = variables.map((v) => v.name);
  return {
    route,
    document,
    operation,
    rootErrorType: validationErrorType({ parentType: rootType, fieldName }),
    compiled: compiled && isCompiledQuery(compiled) ? compiled : undefined,
    scope: field ? requiredScope(field) : undefined,
    variables,
    queryNames: queryParameterNames(route, names),
    listVariables: new Set(variables.filter(({ type }) => isListType(isNonNullType(type) ? type.ofType : type)).map((v) => v.name)),
    bodyVariables: new Set(names.filter((name) => !pathParams(route.path).includes(name))),
  };
}

const pathParams = (path: string) => path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));

/**
 * The query parameters a route takes, by their REST names: the variables no path parameter,
 * header or body gives (a DELETE's spread body may come as query parameters too: `reason`).
 * The OpenAPI document lists the same (test/openapi).
 */
export function queryParameterNames(route: RestRoute, variables: readonly string[]): ReadonlySet<string> {
  const taken = new Set([...pathParams(route.path), ...Object.values(route.headers ?? {})]);
  const body = route.body;
  const free = variables.filter((v) => {
    if (taken.has(v)) return false;
    if (!body) return true;
    if (body === 'spread') return route.method === 'DELETE';
    return 'variable' in body && v !== body.variable;
  });
  const restName = new Map(Object.entries(route.queryAliases ?? {}).map(([rest, variable]) => [variable, rest]));
  return new Set(free.map((v) => restName.get(v) ?? v));
}

/** Runs a prepared document: compiled when it could be, graphql-js otherwise. */
async function run(schema: GraphQLSchema, prepared: PreparedRoute, variableValues: Record<string, unknown>, ctx: RequestContext) {
  ctx.ownDocument = true;
  // Every v1 list answers through listEnvelope, whose next_cursor is null on a last page.
  ctx.endCursorOnlyWithNextPage = true;
  if (prepared.compiled) return prepared.compiled.query(undefined, ctx, variableValues);
  return execute({ schema, document: prepared.document, variableValues, contextValue: ctx });
}

/**
 * Mounts each route behind `guard` (bearer authentication and rate limiting). The guard is on
 * the routes, not on a wildcard: a path that is no route is a 404 and a known path with another
 * method a 405 whether or not a token came with it; only a route that would run asks for one.
 */
export function mountRoutes(app: Hono<HttpEnv>, schema: GraphQLSchema, routes: readonly RestRoute[], guard: MiddlewareHandler<HttpEnv>): void {
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) {
    const prepared = prepareRoute(schema, route);
    // A route backed by a mutation is a write: it takes an Idempotency-Key (idempotency.ts).
    const keyed = prepared.operation.operation === 'mutation' ? { scope: prepared.scope, errorType: prepared.rootErrorType, reusedKey: route.reusedKey } : undefined;
    app.on(route.method, route.path, guard, (c) => (keyed ? keyedRoute(c, keyed, () => runRoute(c, schema, prepared)) : runRoute(c, schema, prepared)));
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  }
  // Registered after every method's handler: a known path with another method is a 405.
  for (const [path, methods] of methodsByPath) {
    app.all(path, () => {
      throw methodNotAllowedError(methods);
    });
  }
}

async function runRoute(c: HonoContext<HttpEnv>, schema: GraphQLSchema, prepared: PreparedRoute): Promise<Response> {
  const { route, operation } = prepared;
  const ctx = c.get('requestContext');
  const raw: Record<string, unknown> = {};
  const fromStrings = new Set<string>();
  // Only the query string: parsing the whole URL is wasted on the many requests that have none.
  const queryAt = c.req.url.indexOf('?');
  const query = queryAt === -1 ? undefined : new URLSearchParams(c.req.url.slice(queryAt + 1).split('#', 1)[0]);
  // A misspelt parameter (`statuss=failed`, `reasn=...`) is refused: ignored, it would give an
  // unfiltered page, or a call cancelled without its reason.
  let unknownQuery: string[] | undefined;
  for (const [key, value] of query ?? []) {
    if (!prepared.queryNames.has(key)) {
      (unknownQuery ??= []).includes(key) || unknownQuery.push(key);
      continue;
    }
    const name = route.queryAliases?.[key] ?? key;
    if (route.singleValueQuery?.includes(name)) {
      raw[name] = value === '' ? undefined : [value];
      continue;
    }
    // `tags=a&tags=b` (OpenAPI's form style, what generated clients send) and `tags=a,b` alike.
    const earlier = raw[name];
    raw[name] = typeof earlier === 'string' && prepared.listVariables.has(name) ? `${earlier},${value}` : value;
    fromStrings.add(name);
  }
  for (const [key, value] of Object.entries(c.req.param() as Record<string, string>)) {
    raw[key] = value;
    fromStrings.add(key);
  }
  for (const [header, name] of Object.entries(route.headers ?? {})) {
    const value = c.req.header(header);
    if (value === undefined) continue;
    raw[name] = value;
    // An empty header is a value for the operation to judge (an empty Idempotency-Key is refused,
    // as the GraphQL argument is), not an absent one as an empty query parameter is.
    if (value !== '') fromStrings.add(name);
  }
  // Path and query are in: scope and app are known before the body is read or checked.
  authorizeFirst(ctx, prepared, raw);
  if (unknownQuery) {
    throw validationFailed(unknownQuery.map((key) => ({ field: key, code: 'unrecognized' as const, message: 'Unrecognized query parameter' })), prepared.rootErrorType);
  }
  let bodyVariable: string | undefined;
  if (route.body) {
    const body = route.formBody && isFormBody(c) ? await readFormBody(c, prepared.rootErrorType) : await readJsonBody(c, route.invalidJson ?? 'invalid_request');
    if (route.body === 'spread') {
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
        throw new AppError(route.invalidJson ?? 'invalid_request', 'Body must be a JSON object');
      }
      const entries = Object.entries((body ?? {}) as Record<string, unknown>);
      // A misspelt key (`reasn`), dropped in silence, would cancel the call without its reason.
      const ignored = route.ignoredBodyKeys ?? {};
      const unknown = entries.filter(([key]) => !prepared.bodyVariables.has(key) && !Object.hasOwn(ignored, key));
      if (unknown.length > 0) {
        throw validationFailed(unknown.map(([key]) => ({ field: key, code: 'unrecognized' as const, message: 'Unrecognized field' })), prepared.rootErrorType);
      }
      // Ignored, but still the kind of value the API document promises.
      const misfits = entries.flatMap(([key, value]) => (Object.hasOwn(ignored, key) ? zodIssuesToDetails(ignored[key]!.safeParse(value).error?.issues ?? [], [key]) : []));
      if (misfits.length > 0) throw validationFailed(misfits, prepared.rootErrorType);
      for (const [key, value] of entries) {
        if (!prepared.bodyVariables.has(key)) continue;
        // The query's value wins, unless it is empty (`?reason=`, no value): then the body's counts.
        if (raw[key] === undefined || raw[key] === '' || !fromStrings.has(key)) {
          raw[key] = value;
          fromStrings.delete(key);
        }
      }
    } else if ('variable' in route.body) {
      bodyVariable = route.body.variable;
      raw[bodyVariable] = body ?? {};
    } else {
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
        throw new AppError('validation_error', 'Body must be a JSON object', { details: [{ field: '', code: 'invalid_type', message: 'must be an object' }] });
      }
      for (const [key, value] of Object.entries(route.body.map((body ?? {}) as Record<string, unknown>))) {
        if (value !== undefined) raw[key] = value;
      }
    }
  }
  const result = await run(schema, prepared, variableValues(prepared.variables, raw, fromStrings), ctx);
  if (result.errors && result.errors.length > 0) {
    // No data at all: the executor refused the variables. Which and why, with field paths, rather
    // than graphql's coercion message, so REST callers get the same details as everywhere else,
    // and every parameter that is wrong, not only those that did not coerce.
    if (!('data' in result)) {
      const details = variableProblems(schema, operation, raw, fromStrings);
      if (details.length > 0) throw validationFailed(restFieldNames(route, stripPrefix(details, bodyVariable)), prepared.rootErrorType);
    }
    const first = result.errors[0]!;
    const appError = toAppError(first);
    if (!appError) {
      ctx.logger.error({ err: first.originalError ?? first, path: first.path }, 'unexpected error in REST route');
      throw serverError();
    }
    if (appError.details) {
      const details = restFieldNames(route, stripPrefix(appError.details, bodyVariable));
      throw new AppError(appError.type, restMessage(appError.message, details), { ...appError, details });
    }
    throw appError;
  }
  const { status = 200, body } = route.respond(result.data as Record<string, unknown>);
  return jsonResponse(ctx, body, status);
}

/**
 * A caller without the endpoint's scope, or without access to the app, gets 403, whatever
 * else is wrong with the request. The schema checks both again when the document runs (the same
 * rule); here they are checked before the input, so a bad body from such a caller is a 403 and
 * not a 400 that tells it how to shape a request it may not make. A malformed appId is left to
 * validation (400, an invalid path parameter).
 */
function authorizeFirst(ctx: RequestContext, prepared: PreparedRoute, raw: Record<string, unknown>): void {
  const { auth } = ctx;
  if (!auth) return;
  const { appId } = raw;
  const foreignApp = typeof appId === 'string' && UUID_PATTERN.test(appId) && !auth.apps.has(appId.toLowerCase());
  if (prepared.scope && !auth.scopes.has(prepared.scope)) {
    // RFC 6750 3.1: the scope the token lacks, for clients that get a narrower or wider token on their own.
    throw new AppError('forbidden', 'Missing scope or no access to this app', {
      headers: { 'WWW-Authenticate': `Bearer realm="switchboard", error="insufficient_scope", scope="${prepared.scope}"` },
    });
  }
  if (foreignApp) throw new AppError('forbidden', 'Missing scope or no access to this app');
}

/** Details name the REST parameter (`limit`), not the variable it was renamed onto (`first`). */
function restFieldNames<T extends { field: string }>(route: RestRoute, details: T[]): T[] {
  const names = route.body && typeof route.body === 'object' && 'fieldNames' in route.body ? Object.entries(route.body.fieldNames) : [];
  const aliases = Object.entries({ ...route.queryAliases, ...route.headers }).map(([rest, variable]) => [variable, rest] as const);
  const single = route.singleValueQuery ?? [];
  if (names.length === 0 && aliases.length === 0 && single.length === 0) return details;
  const inverse = new Map<string, string>([...aliases, ...names]);
  return details.map((d) => {
    const [head = '', ...rest] = d.field.split('.');
    const oneItem = single.includes(head) && rest.length === 1 && rest[0] === '0';
    const renamed = inverse.get(head);
    if (!renamed && !oneItem) return d;
    return { ...d, field: [renamed ?? head, ...(oneItem ? [] : rest)].join('.') };
  });
}

function restMessage(message: string, details: { field: string; message: string }[]): string {
  const first = details[0];
  return message.startsWith('Invalid input') && first ? `Invalid input: ${first.field ? `${first.field}: ` : ''}${first.message}` : message;
}

function stripPrefix<T extends { field: string }>(details: T[], variable: string | undefined): T[] {
  if (!variable) return details;
  return details.map((d) => ({ ...d, field: d.field === variable ? '' : d.field.replace(new RegExp(`^${variable}\\.`), '') }));
}

const isFormBody = (c: HonoContext<HttpEnv>) => (c.req.header('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';

/** A form body as an object of strings; a key given twice is refused (which value was meant?). */
async function readFormBody(c: HonoContext<HttpEnv>, errorType: ErrorType): Promise<Record<string, string> | undefined> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  // No prototype: a `__proto__` key is a key like any other (refused as unrecognized).
  const fields: Record<string, string> = Object.create(null);
  for (const [key, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(fields, key)) {
      throw new AppError(errorType, `${key} is given more than once`, { details: [{ field: key, code: 'invalid_value', message: 'Given more than once' }] });
    }
    fields[key] = value;
  }
  return fields;
}

/** Reads a JSON body; an empty body is undefined; anything unparsable is `invalidJson`. */
export async function readJsonBody(c: HonoContext<HttpEnv>, invalidJson: ErrorType): Promise<unknown> {
  return parseJsonBody(await c.req.text(), invalidJson);
}

/** A body's text as JSON; an empty body is undefined; anything unparsable is `invalidJson`. */
export function parseJsonBody(text: string, invalidJson: ErrorType): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError(invalidJson, 'Request body is not valid JSON');
  }
}

/**
 * A route's JSON response with the request's own headers (X-Request-Id, rate-limit window) in one
 * plain object, which @hono/node-server hands to writeHead as it is. Headers added afterwards
 * through `c.res.headers` would turn it into undici's Headers (every name and value checked by
 * WebIDL), which the server then walks again.
 */
function jsonResponse(ctx: RequestContext, body: unknown, status: number): Response {
  const headers = ctx.responseHeaders;
  headers['Content-Type'] = 'application/json';
  ctx.responseHeadersWritten = true;
  // A route's respond() has no request: its envelope's time is the runtime clock's, set here.
  const meta = (body as { meta?: { timestamp?: string } } | null)?.meta;
  if (meta?.timestamp !== undefined) meta.timestamp = timestamp(ctx.runtime.clock);
  return new Response(JSON.stringify(body), { status, headers });
}

/** Most responses carry meta.timestamp; scheduled-call and availability ones do not. */
export const withMeta = (data: unknown, extra: Record<string, unknown> = {}, clock?: Clock) => ({ data, meta: { timestamp: timestamp(clock) }, ...extra });

/**
 * A variant of mountRoutes for a host with its own envelope whose routes take path parameters
 * only (the video lookup host): a parameter that does not coerce to its type
 * names no record, so it is `not_found`; errors are thrown as AppErrors for the host's onError.
 */
export function mountLookupRoutes(app: Hono<HttpEnv>, schema: GraphQLSchema, routes: readonly RestRoute[], what: string, guard: MiddlewareHandler<HttpEnv>): void {
  for (const route of routes) {
    const prepared = prepareRoute(schema, route);
    app.on(route.method, route.path, guard, async (c) => {
      const params = c.req.param() as Record<string, string>;
      const { values, details } = coerceVariables(schema, prepared.operation.variableDefinitions ?? [], params, new Set(Object.keys(params)));
      if (details.length > 0) throw new AppError('not_found', `${what} not found`);
      const ctx = c.get('requestContext');
      const { status = 200, body } = route.respond(await executePrepared(ctx, schema, prepared, values));
      return jsonResponse(ctx, body, status);
    });
    app.all(route.path, () => {
      throw methodNotAllowedError([route.method]);
    });
  }
}

/** Executes a prepared document; its first error is thrown as an AppError (unexpected ones logged, as server_error). */
async function executePrepared(
  ctx: RequestContext,
  schema: GraphQLSchema,
  prepared: PreparedRoute,
  variableValues: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const result = await run(schema, prepared, variableValues, ctx);
  const first = result.errors?.[0];
  if (first) {
    const appError = toAppError(first);
    if (appError) throw appError;
    ctx.logger.error({ err: first.originalError ?? first, path: first.path }, 'unexpected error in lookup route');
    throw serverError();
  }
  return result.data as Record<string, unknown>;
}
