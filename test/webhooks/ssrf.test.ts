import { describe, expect, it } from 'vitest';
import { assertPublicUrl, guardedLookup, isPrivateAddress } from '../../src/webhooks/ssrf.js';

// Addresses a webhook may not reach, IPv4 and IPv6 (with IPv4 inside IPv6).
describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456:789a::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '64:ff9b::127.0.0.1',
    '2002:c0a8:0101::1',
    // RFC 8215 local-use NAT64 (64:ff9b:1::/48): the embedded IPv4 of the /96 form is judged,
    // any other form (its IPv4 elsewhere, per the prefix length) is refused outright.
    '64:ff9b:1::7f00:1',
    '64:ff9b:1::10.0.0.1',
    '64:ff9b:1:7f00:1::',
    // IPv4-compatible ::/96 (deprecated), hex and dotted (glibc prints AAAA answers so).
    '::7f00:1',
    '::127.0.0.1',
    '::a9fe:a9fe',
    '::0:10.1.2.3',
    '::ffff:0:7f00:1', // SIIT-translated ::ffff:0:0/96
    // Deprecated site-local fec0::/10.
    'fec0::1',
    'feff:ffff::1',
    // Teredo 2001::/32 (here to 127.0.0.1: 0x80ff:fffe XOR-ed), documentation 2001:db8::/32,
    // discard-only 100::/64.
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001::1',
    '2001:db8::1',
    '100::1',
    // Documentation 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 and 3fff::/20, the former 6to4
    // anycast 192.88.99.0/24, segment-routing SIDs 5f00::/16 (also inside a mapped IPv6).
    '192.0.2.1',
    '198.51.100.200',
    '203.0.113.9',
    '192.88.99.1',
    '::ffff:203.0.113.9',
    '3fff::1',
    '3fff:fff:ffff::1',
    '5f00::1',
    '5f00:ffff::1',
    'not-an-address',
  ])('%s is refused', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:0808:0808::1', '64:ff9b::8.8.8.8', '64:ff9b:1::808:808', '::8.8.8.8', '2001:4860:4860::8888', '2001:1::1', '100:0:0:1::1', '192.0.3.1', '198.51.101.1', '203.0.114.1', '192.88.100.1', '3fff:1000::1', '5f01::1'])(
    '%s is public',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
});

describe('assertPublicUrl', () => {
  it('refuses other schemes even when private addresses are allowed', async () => {
    await expect(assertPublicUrl('file:///etc/passwd', true)).rejects.toThrow(/http or https/);
    await expect(assertPublicUrl('gopher://127.0.0.1/', true)).rejects.toThrow(/http or https/);
  });

  it('allows a loopback URL only with allowPrivate', async () => {
    await expect(assertPublicUrl('http://localhost:8080/x', false)).rejects.toThrow(/private, loopback or link-local/);
    await expect(assertPublicUrl('http://localhost:8080/x', true)).resolves.toBeInstanceOf(URL);
  });

  it("does not tell the address a name resolves to (no mapping of internal DNS through it), only a literal's", async () => {
    const named = await assertPublicUrl('http://localhost:8080/x', false).catch((e: Error) => e.message);
    expect(named).not.toMatch(/127\.0\.0\.1|::1/);
    await expect(assertPublicUrl('http://203.0.113.7/x', false)).rejects.toThrow(/resolves to 203\.0\.113\.7,/);
  });
});

// IPv4-mapped, NAT64 and 6to4 forms are judged by their IPv4 address (docs/realtime.md), at
// creation and on every connection.
describe('NAT64 local-use, IPv4-compatible and site-local IPv6', () => {
  const urls = ['http://[64:ff9b:1::7f00:1]/', 'http://[::127.0.0.1]/', 'http://[fec0::1]/'];

  it.each(urls)('assertPublicUrl refuses %s', async (url) => {
    await expect(assertPublicUrl(url, false)).rejects.toThrow(/private, loopback or link-local/);
    await expect(assertPublicUrl(url, true)).resolves.toBeInstanceOf(URL);
  });

  it.each(['64:ff9b:1::7f00:1', '::127.0.0.1', 'fec0::1'])('the connect-time lookup refuses %s', async (host) => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup(false)(host, { all: true }, (e) => resolve(e)));
    expect(error?.code).toBe('EWEBHOOKPRIVATE');
  });
});
