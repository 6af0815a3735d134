import { describe, expect, it } from 'vitest';
import { addressKey } from '../../src/rest/token-route.js';

// The address the token failure budgets count: IPv6 callers by their /64, since one host usually holds a whole /64.
describe('token failure budgets: source address', () => {
  it.each([
    ['127.0.0.2', '127.0.0.2'],
    ['::ffff:127.0.0.2', '127.0.0.2'],
    ['::FFFF:10.1.2.3', '10.1.2.3'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    [undefined, 'unknown'],
  ])('%s counts as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('two addresses of one /64 share a budget; neighbouring /64s do not', () => {
    expect(addressKey('2001:db8:a:b::1')).toBe(addressKey('2001:db8:a:b:9999::2'));
    expect(addressKey('2001:db8:a:b::1')).not.toBe(addressKey('2001:db8:a:c::1'));
  });
});
