import { describe, expect, test } from 'vitest';
import { addressKey } from '../src/http/address-key.js';

// The key an address's limits count under (src/http/address-key.ts); through the whole stack:
// test/rate-limits.test.ts.
describe('addressKey', () => {
  test('IPv6 by its /64, however it is written', () => {
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0DB8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('[2001:db8:1:2::9]')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  test('IPv4, also written as IPv6, by the address', () => {
    expect(addressKey('192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('192.0.2.2')).toBe('192.0.2.2');
  });

  test('anything else as it is', () => {
    for (const value of ['unknown', '', 'console', 'not an address', '999.1.1.1'])
      expect(addressKey(value)).toBe(value);
  });
});
