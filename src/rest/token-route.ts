import type { IncomingMessage } from 'node:http';
import { BlockList, isIP, isIPv6 } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context as HonoContext } from 'hono';
import { issueToken, type ClientCredentials } from '../auth/access-tokens.js';
import { trustedProxy } from '../config.js';
import { AppError } from '../errors/app-error.js';
import type { HttpEnv } from '../web/hono-env.js';
import { parseJsonBody, withMeta } from './adapter.js';
import { lingerOnClose } from '../web/lingering-close.js';
import { readTextUpTo } from '../web/read-body.js';

/**
 * POST /oauth/token is the one v1 path that does not run through the schema: it authenticates
 * the client itself (RFC 6749 client credentials) before any bearer context exists.
 * Accepts JSON, form bodies and HTTP Basic client authentication, as OAuth clients send them.
 */
export async function tokenHandler(c: HonoContext<HttpEnv>): Promise<Response> {
  const runtime = c.get('requestContext').runtime;
  if (announcesTooLarge(c.req.header('content-length'))) bodyTooLarge(c);
  // A chunked body has no length to check beforehand: it is counted as it streams in.
  const bodyText = await readTextUpTo(c, TOKEN_BODY_MAX_BYTES);
  if (bodyText === undefined) bodyTooLarge(c);
  const contentType = c.req.header('content-type') ?? '';
  let fields: Record<string, unknown> = {};
  if (contentType.includes('application/x-www-form-urlencoded')) {
    fields = Object.fromEntries(new URLSearchParams(bodyText));
  } else {
    const body = parseJsonBody(bodyText, 'invalid_request');
    // An empty body sent as JSON is not JSON (an invalid JSON body is invalid_request).
    if (body === undefined && contentType.includes('json')) throw new AppError('invalid_request', 'Request body is not valid JSON');
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
      throw new AppError('invalid_request', 'Body must be a JSON object');
    }
    fields = (body ?? {}) as Record<string, unknown>;
  }
  const basic = parseBasic(c.req.header('authorization'));
  refuseNonStrings(fields, basic !== undefined);
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);
  const credentials: ClientCredentials = {
    grantType: text(fields.grant_type),
    clientId: basic?.clientId ?? text(fields.client_id),
    clientSecret: basic?.clientSecret ?? text(fields.client_secret),
    viaBasic: basic !== undefined,
    sourceAddress: sourceAddress(c, runtime.config.TRUSTED_PROXIES),
    scope: text(fields.scope),
    appIds: text(fields.app_id),
  };
  // The granted scope is the standard endpoint's to tell; this one answers the three fields it always has.
  const { scope: _granted, ...token } = await issueToken(runtime, credentials);
  c.header('Cache-Control', 'no-store');
  return c.json(withMeta(token, {}, runtime.clock));
}

/**
 * A token request is a few hundred bytes; one announcing more than TOKEN_BODY_MAX_BYTES is
 * answered 413 before its body is read or parsed, and a chunked one as soon as it passes that
 * (the 1 MiB limit of other paths would let an unauthenticated caller have a megabyte of JSON
 * parsed per request).
 */
export const TOKEN_BODY_MAX_BYTES = 16 * 1024;

const announcesTooLarge = (length: string | undefined) => length !== undefined && /^\s*\d+\s*$/.test(length) && Number(length) > TOKEN_BODY_MAX_BYTES;

function bodyTooLarge(c: HonoContext<HttpEnv>): never {
  // Read and dropped for a while after the answer, so the uploading client gets it rather than a reset.
  lingerOnClose((c.env as { incoming?: IncomingMessage } | undefined)?.incoming);
  throw new AppError('payload_too_large', `A token request body is at most ${TOKEN_BODY_MAX_BYTES} bytes`, { headers: { Connection: 'close' } });
}

/**
 * A JSON field given as something other than a string (`"grant_type": ["client_credentials"]`,
 * `"client_id": 5`) is `invalid_type`, not reported as missing (`required`). null counts as left out.
 */
function refuseNonStrings(fields: Record<string, unknown>, viaBasic: boolean): void {
  const wrong = (name: string) => fields[name] !== undefined && fields[name] !== null && typeof fields[name] !== 'string';
  const detail = (field: string) => ({ field, code: 'invalid_type' as const, message: 'must be a string' });
  if (wrong('grant_type')) throw new AppError('unsupported_grant_type', 'grant_type must be client_credentials', { details: [detail('grant_type')] });
  const credentials = viaBasic ? [] : ['client_id', 'client_secret'].filter(wrong);
  if (credentials.length > 0) throw new AppError('invalid_client', `${credentials.join(' and ')} must be a string`, { details: credentials.map(detail) });
  const narrowing = ['scope', 'app_id'].filter(wrong);
  if (narrowing.length > 0) throw new AppError('invalid_request', `${narrowing.join(' and ')} must be a string`, { details: narrowing.map(detail) });
}

export function parseBasic(header: string | undefined): { clientId: string; clientSecret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 2.3.1: both parts are form-urlencoded before encoding.
  const unescape = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { clientId: unescape(decoded.slice(0, colon)), clientSecret: unescape(decoded.slice(colon + 1)) };
}

/**
 * The caller's address for the token failure budgets: the socket's peer, never a forwarded
 * header (anyone can write one).
 */
export function sourceAddress(c: HonoContext<HttpEnv>, trustedProxies: readonly string[] = []): string {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    // No node socket behind the request (app.request() in-process): one shared "address".
  }
  if (address && trustedProxies.length > 0) address = forwardedClient(address, c.req.header('x-forwarded-for'), trustedProxies);
  return addressKey(address);
}

/**
 * Behind trusted proxies the caller is the right-most X-Forwarded-For entry that is not itself a
 * trusted proxy: entries further left were written by the caller and prove nothing. A malformed
 * entry stops the walk at the last trusted hop.
 */
export function forwardedClient(peer: string, forwardedFor: string | undefined, trustedProxies: readonly string[]): string {
  const trusted = blockListOf(trustedProxies);
  const isTrusted = (ip: string) => trusted.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4');
  if (!isTrusted(peer) || !forwardedFor) return peer;
  // Each hop adds one entry; more than a few dozen proxies is no real chain.
  const text = forwardedFor.length > 2048 ? forwardedFor.slice(forwardedFor.indexOf(',', forwardedFor.length - 2048) + 1) : forwardedFor;
  const hops = text.split(',').slice(-32).map((h) => h.trim()).reverse();
  let client = peer;
  for (const hop of hops) {
    if (isIP(hop) === 0) break;
    client = hop;
    if (!isTrusted(hop)) break;
  }
  return client;
}

const blockLists = new WeakMap<readonly string[], BlockList>();
function blockListOf(entries: readonly string[]): BlockList {
  let list = blockLists.get(entries);
  if (!list) {
    list = new BlockList();
    for (const entry of entries) {
      const parsed = trustedProxy(entry);
      if (parsed) list.addSubnet(...parsed);
    }
    blockLists.set(entries, list);
  }
  return list;
}

/**
 * The address as the budgets count it: IPv4 (an IPv4-mapped IPv6 peer too) as it is; an IPv6
 * peer by its /64, the block one host is usually given, so walking through its addresses does
 * not buy new budgets.
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address)) return address.slice(7);
  if (!isIPv6(address.split('%')[0]!)) return address;
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The groups of an IPv6 address with "::" expanded (the first four are all the /64 needs). */
function expandIPv6(address: string): string[] {
  const [head, tail] = address.split('%')[0]!.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  // An embedded IPv4 tail (64:ff9b::192.0.2.1) holds two groups.
  const right = tail ? tail.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}
