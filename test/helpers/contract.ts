import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { schema } from '../../src/graphql/schema.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { restRoutes, videoHostRoutes } from '../../src/rest/routes.js';

/**
 * Contract checks for REST responses: every response whose URL and method match an operation of
 * the OpenAPI document (built by the same code that serves /api/v1/openapi.json) must have a
 * documented status and a body valid against that status's schema. request() in http.ts calls
 * this for every response, so the REST tests double as contract tests.
 */

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };

let state:
  | {
      doc: Doc;
      ajv: InstanceType<typeof Ajv2020.default>;
      matchers: { regex: RegExp; path: string; host: 'main' | 'video'; prefix: string }[];
      validators: Map<string, ValidateFunction>;
    }
  | undefined;

function load() {
  if (state) return state;
  const doc = buildOpenApiDocument({ schema, routes: restRoutes, videoRoutes: videoHostRoutes }) as unknown as Doc;
  const Ajv = Ajv2020.default ?? (Ajv2020 as unknown as typeof Ajv2020.default);
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats.default ?? (addFormats as unknown as typeof addFormats.default))(ajv);
  ajv.addSchema(doc, 'openapi');
  const videoPaths = new Set(videoHostRoutes.map((r) => r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')));
  // A main-host path item with servers of its own (the root OAuth endpoints) sits under their path, not /api/v1.
  const prefixOf = (path: string) => {
    const url = (doc.paths[path] as { servers?: { url: string }[] }).servers?.[0]?.url;
    return url === undefined || videoPaths.has(path) ? '/api/v1' : new URL(url, 'http://localhost').pathname.replace(/\/$/, '');
  };
  const matchers = Object.keys(doc.paths).map((path) => ({
    path,
    prefix: prefixOf(path),
    host: videoPaths.has(path) ? ('video' as const) : ('main' as const),
    regex: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  state = { doc, ajv, matchers, validators: new Map() };
  return state;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The document's operation for a request URL, if any: its path template and host. */
export function documentedOperation(url: string, method: string): { path: string; method: string } | undefined {
  const { doc, matchers } = load();
  const { pathname } = new URL(url);
  const m = method.toLowerCase();
  for (const matcher of matchers) {
    const relative = matcher.host === 'main' ? (pathname.startsWith(`${matcher.prefix}/`) ? pathname.slice(matcher.prefix.length) : undefined) : pathname;
    if (relative === undefined || !matcher.regex.test(relative)) continue;
    if (doc.paths[matcher.path]?.[m]) return { path: matcher.path, method: m };
  }
  return undefined;
}

/** Throws when a response of a documented operation has an undocumented status or a body off its schema. */
export function checkContract(url: string, method: string, status: number, body: unknown): void {
  const operation = documentedOperation(url, method);
  if (!operation) return;
  const { doc, ajv, validators } = load();
  const responses = doc.paths[operation.path]![operation.method]!.responses;
  const where = `${method.toUpperCase()} ${operation.path}`;
  const response = responses[String(status)];
  if (!response) {
    throw new Error(`OpenAPI contract: ${where} answered ${status}, which the document does not list (${Object.keys(responses).join(', ')}); body ${JSON.stringify(body)?.slice(0, 400)}`);
  }
  if (!response.content?.['application/json']) return;
  const key = `${operation.method} ${operation.path} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#/${pointer('paths', operation.path, operation.method, 'responses', String(status), 'content', 'application/json', 'schema')}` });
    validators.set(key, validate);
  }
  if (!validate(body)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    throw new Error(`OpenAPI contract: ${where} ${status} body does not match the document:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(body)?.slice(0, 600)}`);
  }
}
