import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Webhook URLs that resolve to private, loopback, link-local, site-local or
// unique-local addresses are refused unless WEBHOOK_ALLOW_PRIVATE=1. Checked when a subscription
// is created and again on every connection the worker opens (see `guardedLookup`), so a name
// that re-resolves to an internal address later (DNS rebinding) is refused too.

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation (RFC 5737)
  ['192.88.99.0', 24], // former 6to4 relay anycast (RFC 7526)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated by RFC 3879, still routed inside some sites)
  ['fc00::', 7], // unique-local
  ['ff00::', 8], // multicast
  // Teredo: a tunnel to the IPv4 hidden (XOR-ed) in the address, reached through a relay; the
  // IPv4 may be any internal one and no webhook receiver is served over it.
  ['2001::', 32],
  ['2001:db8::', 32], // documentation (RFC 3849)
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing SIDs (RFC 9602), not routed on the internet
  ['100::', 64], // discard-only (RFC 6666)
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/**
 * An IPv4 address embedded in an IPv6 one: mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d
 * (deprecated, but some stacks still send it as IPv4), translated ::ffff:0:a.b.c.d, NAT64
 * 64:ff9b::/96 and its local-use form 64:ff9b:1::/96 (RFC 8215), 6to4 2002::/16. `null`: a
 * form whose IPv4 cannot be located, refused outright.
 */
function embeddedIpv4(address: string): string | null | undefined {
  const groups = expandIpv6(address.toLowerCase());
  if (!groups) return undefined;
  const toV4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  const last32 = toV4(groups[6]!, groups[7]!);
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return last32; // mapped; compatible (:: and ::1 too)
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return last32; // SIIT-translated ::ffff:0:a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return last32;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups[2] === 1) {
    // A local-use prefix may be any RFC 6052 length within the /48, each putting the IPv4
    // elsewhere: only the /96 form can be read for sure; the translator is internal anyway.
    return zeros(3, 6) ? last32 : null;
  }
  if (groups[0] === 0x2002) return toV4(groups[1]!, groups[2]!);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address, a trailing dotted IPv4 (::ffff:1.2.3.4) included. */
function expandIpv6(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  return [...left, ...Array<number>(Math.max(0, missing)).fill(0), ...right];
}

/** True for an address a webhook may not reach (IPv4, IPv6 and IPv4 inside IPv6). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4 === null) return true;
  if (v4 !== undefined) return blocked.check(v4, 'ipv4');
  return blocked.check(address, 'ipv6');
}

export class UnsafeUrlError extends Error {
  override name = 'UnsafeUrlError';
}

/** The host of a URL as the resolver and isIP want it (IPv6 literals lose their brackets). */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Refuses a URL whose scheme is not http(s) or whose host resolves (any of its addresses) to a
 * private address; `allowPrivate` lifts only the address rule.
 */
export async function assertPublicUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UnsafeUrlError('must use http or https');
  if (url.username || url.password) throw new UnsafeUrlError('must not carry credentials');
  // WHATWG URL keeps an explicit :0, which no server listens on: every delivery would fail.
  if (url.port === '0') throw new UnsafeUrlError('must not use port 0');
  if (allowPrivate) return url;
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new UnsafeUrlError(`host ${host} does not resolve`);
    }
  }
  const refused = addresses.find(isPrivateAddress);
  if (refused !== undefined) {
    // A name's resolution is not told: it would let a tenant map internal DNS through this answer.
    const what = isIP(host) ? `resolves to ${refused},` : 'resolves to';
    throw new UnsafeUrlError(`${what} a private, loopback or link-local address (or one never routed) (set WEBHOOK_ALLOW_PRIVATE=1 to allow)`);
  }
  return url;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void;

/**
 * A `lookup` for http.request that refuses private addresses at connect time, so the address
 * checked is the address connected to (no window between a check and a second resolution).
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    lookup(hostname, { all: true, verbatim: true }).then(
      (results) => {
        const refused = allowPrivate ? undefined : results.find((r) => isPrivateAddress(r.address));
        if (refused) {
          const error: NodeJS.ErrnoException = new UnsafeUrlError(`${hostname} resolves to ${refused.address}, a private address`);
          error.code = 'EWEBHOOKPRIVATE';
          callback(error, []);
          return;
        }
        if (options.all) callback(null, results);
        else callback(null, results[0]!.address, results[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
