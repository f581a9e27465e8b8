import type * as Dns from 'node:dns';

/**
 * A resolver the test controls, for `vi.mock('node:dns', ...)`: names it was told about (use
 * `.test` names) get its answers (all of them with `{ all: true }`, else the first, as node:dns
 * answers), every other name the system's. Each lookup takes the next
 * answer and the last one repeats, so a name can resolve to a public address when checked and to
 * loopback when connected to (DNS rebinding).
 *
 * @example
 * vi.mock('node:dns', async (importOriginal) => (await import('./support/fake-dns.js')).withFakeLookup(await importOriginal()));
 * dnsAnswers.set('rebind.test', [['93.184.215.14'], ['127.0.0.1']]);
 */
export type DnsAnswer = string[] | 'ENOTFOUND';
export const dnsAnswers = new Map<string, DnsAnswer[]>();

export function withFakeLookup(dns: typeof Dns): typeof Dns {
  function lookup(hostname: string, options: object, callback: (error: Error | null, addresses: unknown) => void) {
    const answers = dnsAnswers.get(hostname);
    if (!answers) return dns.lookup(hostname, options as never, callback as never);
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
    const family = (address: string) => (address.includes(':') ? 6 : 4);
    setImmediate(() =>
      answer === 'ENOTFOUND'
        ? callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), [])
        : (options as { all?: boolean }).all
          ? callback(
              null,
              answer.map((address) => ({ address, family: family(address) })),
            )
          : (callback as (error: null, address: string | undefined, family: number) => void)(
              null,
              answer[0],
              family(answer[0] ?? ''),
            ),
    );
  }
  return { ...dns, lookup, default: { ...dns, lookup } } as unknown as typeof Dns;
}
