import { request as httpRequest } from 'node:http';
import { checkContract } from './contract.js';

/** Small fetch wrappers for tests: JSON in, status + headers + parsed body out. */
export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function request<T = any>(
  url: string,
  init: {
    method?: string;
    token?: string;
    json?: unknown;
    body?: string;
    headers?: Record<string, string>;
    /** false skips the OpenAPI contract check (on by default, see contract.ts). */
    contract?: boolean;
  } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const method = init.method ?? (body !== undefined ? 'POST' : 'GET');
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // leave as text
  }
  // Every REST response of a documented operation must match the OpenAPI document.
  if (init.contract !== false) checkContract(url, method, res.status, parsed);
  return { status: res.status, headers: res.headers, body: parsed as T };
}

export async function gql<T = any>(url: string, token: string | undefined, query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  return request<{ data?: T; errors?: { message: string; extensions?: Record<string, any> }[] }>(`${url}/graphql`, {
    token,
    json: { query, variables },
    headers,
  });
}

/** For tests of refusals before execution: this media type gets them as 400 rather than 200. */
export const graphQLResponseJson = { accept: 'application/graphql-response+json' };

/** A request on its own connection (for bodies the server refuses before reading them). */
export function requestOnce(url: string, init: { method?: string; headers?: Record<string, string>; body: string }): Promise<JsonResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'POST', headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers(Object.entries(res.headers).map(([k, v]): [string, string] => [k, String(v)]));
        const body = text ? JSON.parse(text) : undefined;
        try {
          checkContract(url, init.method ?? 'POST', res.statusCode ?? 0, body);
        } catch (error) {
          reject(error);
          return;
        }
        resolve({ status: res.statusCode ?? 0, headers, body });
      });
    });
    // The server may answer and close before the whole body is written.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(init.body);
  });
}

/** The error envelope, asserted loosely: type, message, ISO timestamp. */
export function expectErrorEnvelope(body: any, type: string) {
  if (!body?.error) throw new Error(`expected an error envelope, got ${JSON.stringify(body)}`);
  if (body.error.type !== type) throw new Error(`expected error.type ${type}, got ${body.error.type}: ${JSON.stringify(body)}`);
  if (typeof body.error.message !== 'string' || !body.error.message) throw new Error('error.message missing');
  if (Number.isNaN(Date.parse(body.error.timestamp))) throw new Error('error.timestamp is not ISO 8601');
}
