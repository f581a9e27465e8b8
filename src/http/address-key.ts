import ipaddr from 'ipaddr.js';

/**
 * The key an address's limits are counted under (rate-limit buckets of anonymous requests, sign-in,
 * sign-up and invitation throttles, connections per address). An IPv6 client is usually given a
 * whole /64 (its provider's prefix; the host part is its own to choose), so a key per full
 * address would give one client 2^64 fresh buckets: IPv6 addresses count by their /64. IPv4,
 * and IPv4 written as IPv6 (`::ffff:192.0.2.1`), by the address. Anything else (`unknown`, a
 * proxy's odd header) as it is.
 */
export function addressKey(address: string): string {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return address;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  // The zone (fe80::1%eth0) names an interface of ours, not the client: dropped with the host part.
  return `${v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
