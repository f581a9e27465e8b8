import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where the service may send requests that users choose the address of (webhooks, OAuth client
 * metadata documents through src/http/safe-fetch.ts): public
 * addresses only, checked after DNS resolution, because a hostname can resolve anywhere. The
 * check runs inside the connection's own lookup (`safeLookup`), so the address checked is the
 * address connected to: a name that re-resolves to 127.0.0.1 between two checks gains nothing.
 * ipaddr.js classifies addresses (its `range()` names every special-purpose block of the IANA
 * registries), so the lists of private, loopback and link-local blocks are not written here.
 */

/** Cloud metadata services: refused even where private networks are allowed, since they hand out credentials. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

export interface OutboundPolicy {
  /** Allow private, loopback and link-local addresses, and plain http (self-hosted receivers). */
  allowPrivateNetworks: boolean;
}

export class OutboundAddressError extends Error {
  constructor(
    message: string,
    readonly code: 'scheme' | 'address' | 'resolution',
  ) {
    super(message);
    this.name = 'OutboundAddressError';
  }
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * The IPv4 address an IPv6 address carries: IPv4-compatible (::a.b.c.d, RFC 4291; ipaddr.js
 * calls it unicast), NAT64 (RFC 6052), SIIT (RFC 6145), 6to4 (RFC 3056) and Teredo (RFC 4380,
 * the client address inverted). A host reached through one of them is that IPv4 host.
 */
function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = ip.toByteArray();
  const range = ip.range();
  if (ip.match(IPV4_COMPATIBLE) || ip.match(NAT64) || range === 'rfc6145') return new ipaddr.IPv4(bytes.slice(12));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  if (range === 'teredo') return new ipaddr.IPv4(bytes.slice(12).map((byte) => byte ^ 0xff));
  return null;
}

/** Why `address` may not be connected to, or null when it may. */
export function refusedAddress(address: string, policy: OutboundPolicy): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const ip = ipaddr.process(address); // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 it is.
  const embedded = ip.kind() === 'ipv6' ? embeddedIPv4(ip as ipaddr.IPv6) : null;
  const normalized = ip.toNormalizedString();
  const canonical = ip.kind() === 'ipv6' ? ipaddr.IPv6.parse(normalized).toString() : normalized;
  if (METADATA_ADDRESSES.has(canonical) || METADATA_ADDRESSES.has(String(embedded)))
    return `${address} is a cloud metadata address`;
  if (policy.allowPrivateNetworks) return null;
  const range = ip.range();
  if (range !== 'unicast') return `${address} is not a public address (${range})`;
  // Only the deprecated IPv4-compatible block is "unicast" and embeds an address: refused whatever it embeds.
  return embedded ? `${address} is not a public address (IPv4-compatible form of ${embedded})` : null;
}

/** The URL's own rules: https (http too where private networks are allowed), no credentials in it. */
function checkUrlShape(url: string, policy: OutboundPolicy): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundAddressError('must be an absolute URL', 'scheme');
  }
  const allowed = policy.allowPrivateNetworks ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(parsed.protocol)) {
    throw new OutboundAddressError(
      policy.allowPrivateNetworks ? 'must be an https or http URL' : 'must be an https URL',
      'scheme',
    );
  }
  if (parsed.username || parsed.password)
    throw new OutboundAddressError('must not contain a user name or password', 'scheme');
  return parsed;
}

// Stryker disable next-line Regex: a hostname has brackets only around an IPv6 address, at both ends
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Resolves the URL's host and checks every address it gives: what creation and every send call. */
export async function checkOutboundUrl(url: string, policy: OutboundPolicy): Promise<URL> {
  const parsed = checkUrlShape(url, policy);
  const host = hostOf(parsed);
  const addresses = isIP(host) ? [host] : await resolveAll(host);
  for (const address of addresses) {
    const why = refusedAddress(address, policy);
    if (why) throw new OutboundAddressError(`resolves to a refused address: ${why}`, 'address');
  }
  return parsed;
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, addresses: LookupAddress[]) => {
      if (error || addresses.length === 0) reject(new OutboundAddressError(`cannot resolve ${host}`, 'resolution'));
      else resolve(addresses.map((a) => a.address));
    }),
  );
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) requests that refuses what `refusedAddress` refuses: the address
 * checked is the one the socket connects to. (An IP literal in the URL skips lookup: check it
 * with checkOutboundUrl first.)
 */
export function safeLookup(policy: OutboundPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const why = refusedAddress(address, policy);
        if (why)
          return callback(new OutboundAddressError(`${hostname} resolves to a refused address: ${why}`, 'address'), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}
