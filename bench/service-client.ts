/** What the bench tools ask a running service (or floor) directly, outside autocannon. */
import type { HttpRequest } from './types.js';

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One request; the body parsed as JSON, or kept as text for an error message. */
export async function send(base: string, req: HttpRequest): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + req.path, { method: req.method, headers: req.headers, body: req.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the error message
  }
  return { status: res.status, body };
}

/** A bearer token of `client` from the service at `service.url`. */
export async function issueToken(service: { url: string }, client: { clientId: string; clientSecret: string }): Promise<string> {
  const { status, body } = await send(service.url, {
    method: 'POST',
    path: '/api/v1/oauth/token',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  });
  if (status !== 200) throw new Error(`token request answered ${status}: ${JSON.stringify(body)}`);
  return (body as { data: { access_token: string } }).data.access_token;
}
