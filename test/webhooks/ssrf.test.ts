import { describe, expect, it } from 'vitest';
import { assertPublicUrl, isPrivateAddress } from '../../src/webhooks/ssrf.js';

// DESIGN section 7: addresses a webhook may not reach, IPv4 and IPv6 (with IPv4 inside IPv6).
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
    'not-an-address',
  ])('%s is refused', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:0808:0808::1'])(
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
});
