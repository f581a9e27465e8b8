import { lookup } from 'node:dns/promises';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { refusedAddress } from './outbound-address.js';

/**
 * Outbound GETs to addresses that someone else chose (an OAuth client's metadata URL): they must
 * not reach this machine, the private network or cloud metadata services by accident (SSRF).
 * The host is resolved once, every address is classified, and the connection goes to the
 * address that was checked (a second DNS answer cannot swap in 127.0.0.1: DNS rebinding).
 * https only, no redirects, bounded time and size. Which addresses are refused is the one rule
 * webhooks follow too (src/http/outbound-address.ts): every non-public address, and cloud
 * metadata addresses even for a host the operator allowed.
 */

export interface SafeFetchOptions {
  /** Whole exchange, from DNS to the last body byte. */
  timeoutMs: number;
  /** Larger bodies are refused, and the download stops there. */
  maxBytes: number;
  /** Host names (lower case) an operator allows to resolve to non-public addresses. */
  allowedHosts?: readonly string[];
  /** Extra trusted CAs (PEM), beside Node's own. */
  caPem?: string;
  headers?: Record<string, string>;
}

export interface SafeResponse {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** Why a fetch was refused; `code` is stable for callers and tests. */
export class SafeFetchError extends Error {
  constructor(
    readonly code: 'not_https' | 'blocked_address' | 'dns_failed' | 'timeout' | 'too_large' | 'redirect' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'SafeFetchError';
  }
}

/** The host's addresses, all of them public unless the operator allowed the host: the first is the one to connect to. */
async function checkedAddress(
  hostname: string,
  allowedHosts: readonly string[],
): Promise<{ address: string; family: number }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  try {
    addresses = ipaddr.isValid(bare)
      ? [{ address: bare, family: ipaddr.parse(bare).kind() === 'ipv6' ? 6 : 4 }]
      : await lookup(bare, { all: true, verbatim: true });
  } catch {
    throw new SafeFetchError('dns_failed', `${hostname} does not resolve.`);
  }
  if (!addresses.length) throw new SafeFetchError('dns_failed', `${hostname} does not resolve.`);
  // Every answer is checked, not only the first: the client library may pick any of them.
  const policy = { allowPrivateNetworks: allowedHosts.includes(bare.toLowerCase()) };
  const refused = addresses.map((a) => refusedAddress(a.address, policy)).find((why) => why !== null);
  if (refused) throw new SafeFetchError('blocked_address', `${hostname} resolves to a refused address: ${refused}.`);
  return addresses[0]!;
}

/** GET `url` under the rules above. Resolves with any status; throws SafeFetchError when refused. */
export async function safeFetch(url: URL, options: SafeFetchOptions): Promise<SafeResponse> {
  if (url.protocol !== 'https:') throw new SafeFetchError('not_https', `${url.href} is not an https URL.`);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const timeout = () => new SafeFetchError('timeout', `${url.host} did not answer within ${options.timeoutMs} ms.`);
  const expired = new Promise<never>((_, reject) =>
    deadline.addEventListener('abort', () => reject(timeout()), { once: true }),
  );
  expired.catch(() => {}); // it loses the race whenever DNS answers in time: not an unhandled rejection then
  const pinned = await Promise.race([checkedAddress(url.hostname, options.allowedHosts ?? []), expired]);
  // The connection goes to the checked address; TLS still verifies the certificate for the name.
  const pin: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  return new Promise<SafeResponse>((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: 'GET',
        headers: { 'user-agent': 'workmgmt', ...options.headers },
        lookup: pin,
        signal: deadline,
        // `ca` replaces Node's bundled roots rather than adding to them: both are given, so public hosts still verify.
        ...(options.caPem ? { ca: [...rootCertificates, options.caPem] } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          reject(new SafeFetchError('redirect', `${url.href} redirects (${status}); redirects are not followed.`));
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > options.maxBytes) {
          res.destroy();
          reject(new SafeFetchError('too_large', `${url.href} is larger than ${options.maxBytes} bytes.`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            res.destroy();
            reject(new SafeFetchError('too_large', `${url.href} is larger than ${options.maxBytes} bytes.`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          resolve({ status, headers, body: Buffer.concat(chunks) });
        });
        res.on('error', (error) => reject(deadline.aborted ? timeout() : new SafeFetchError('network', error.message)));
      },
    );
    req.on('error', (error) =>
      reject(deadline.aborted ? timeout() : new SafeFetchError('network', `${url.host}: ${error.message}`)),
    );
    req.end();
  });
}
