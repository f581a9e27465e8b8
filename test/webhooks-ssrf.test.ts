import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { refusedAddress, safeLookup } from '../src/http/outbound-address.js';
import { sealSecret } from '../src/webhooks/secret-box.js';
import { newSigningSecret } from '../src/webhooks/signing.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

/**
 * A resolver the test controls, for names under `.test` it was told about (every other name goes
 * to the system's): each lookup takes the next answer, the last one repeats. That is how a name
 * can resolve to a public address when checked and to loopback when connected to (DNS rebinding).
 */
type Answer = string[] | 'ENOTFOUND';
const dnsAnswers = vi.hoisted(() => new Map<string, Answer[]>());
vi.mock('node:dns', async (importOriginal) => {
  const dns = await importOriginal<typeof import('node:dns')>();
  function lookup(hostname: string, options: object, callback: (error: Error | null, addresses: unknown) => void) {
    const answers = dnsAnswers.get(hostname);
    if (!answers) return dns.lookup(hostname, options as never, callback as never);
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
    const family = (address: string) => (address.includes(':') ? 6 : 4);
    setImmediate(() =>
      answer === 'ENOTFOUND'
        ? callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), [])
        : callback(null, answer.map((address) => ({ address, family: family(address) }))),
    );
  }
  return { ...dns, lookup, default: { ...dns, lookup } };
});

// WEBHOOKS_ALLOW_PRIVATE_NETWORKS off, as in production by default.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ webhooks: { allowPrivateNetworks: false, secretKey: undefined, worker: true, leaseSeconds: 60 } });
});
afterAll(() => t.close());

const create = (url: string) => t.call('POST', '/api/webhooks', { token: t.user('adam').token, body: { url, events: ['*'] } });
const urlError = async (url: string) => (await expectProblem(await create(url), 400, 'validation_failed')).errors;

describe('outbound address safety', () => {
  test('refused at creation: metadata, loopback, plain http, private names after DNS', async () => {
    expect(await urlError('http://169.254.169.254/latest/meta-data')).toEqual([{ field: 'url', message: 'must be an https URL' }]);
    expect(await urlError('https://169.254.169.254/latest/meta-data')).toEqual([{ field: 'url', message: expect.stringMatching(/cloud metadata address/) }]);
    expect(await urlError('https://[fd00:ec2::254]/')).toEqual([{ field: 'url', message: expect.stringMatching(/cloud metadata address/) }]);
    expect(await urlError('http://127.0.0.1:4200/hook')).toEqual([{ field: 'url', message: 'must be an https URL' }]);
    expect(await urlError('https://127.0.0.1/hook')).toEqual([{ field: 'url', message: expect.stringMatching(/not a public address \(loopback\)/) }]);
    expect(await urlError('https://10.0.0.8/hook')).toEqual([{ field: 'url', message: expect.stringMatching(/private/) }]);
    expect(await urlError('https://[::ffff:192.168.1.1]/hook')).toEqual([{ field: 'url', message: expect.stringMatching(/private/) }]);
    // A hostname is judged by what it resolves to.
    expect(await urlError('https://localhost/hook')).toEqual([{ field: 'url', message: expect.stringMatching(/resolves to a refused address: (127\.0\.0\.1|::1) is not a public address/) }]);
    expect(await urlError('https://user:pw@example.com/hook')).toEqual([{ field: 'url', message: 'must not contain a user name or password' }]);
    expect(await urlError('https://user@example.com/hook')).toEqual([{ field: 'url', message: 'must not contain a user name or password' }]);
    expect(await urlError('https://[/hook')).toEqual([{ field: 'url', message: 'must be an absolute URL' }]);
  });

  test('refused at creation: IPv6 forms that carry a private or loopback IPv4 address', async () => {
    const cases: [string, RegExp][] = [
      ['https://[::127.0.0.1]/hook', /IPv4-compatible form of 127\.0\.0\.1/], // the URL parser writes it [::7f00:1]
      ['https://[::10.0.0.1]/hook', /IPv4-compatible form of 10\.0\.0\.1/],
      ['https://[::ffff:127.0.0.1]/hook', /loopback/], // IPv4-mapped
      ['https://[::ffff:0:10.0.0.1]/hook', /rfc6145/], // SIIT
      ['https://[64:ff9b::10.0.0.1]/hook', /rfc6052/], // NAT64
      ['https://[2002:a00:1::1]/hook', /6to4/], // 6to4 of 10.0.0.1
      ['https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/hook', /teredo/], // Teredo, client 10.0.0.1
    ];
    for (const [url, why] of cases) expect(await urlError(url)).toEqual([{ field: 'url', message: expect.stringMatching(why) }]);
  });

  test('refused at creation: a name that does not resolve, or resolves to nothing', async () => {
    dnsAnswers.set('missing.test', ['ENOTFOUND']);
    dnsAnswers.set('empty.test', [[]]);
    expect(await urlError('https://missing.test/hook')).toEqual([{ field: 'url', message: 'cannot resolve missing.test' }]);
    expect(await urlError('https://empty.test/hook')).toEqual([{ field: 'url', message: 'cannot resolve empty.test' }]);
  });

  test('a name is judged by every address it resolves to, not the first', async () => {
    dnsAnswers.set('mixed.test', [['93.184.215.14', '10.0.0.7']]);
    expect(await urlError('https://mixed.test/hook')).toEqual([{ field: 'url', message: expect.stringMatching(/10\.0\.0\.7 is not a public address \(private\)/) }]);
  });

  test('the metadata addresses stay refused even where private networks are allowed', () => {
    const carriers = ['::ffff:169.254.169.254', '::169.254.169.254', '64:ff9b::169.254.169.254', '::ffff:0:169.254.169.254', '2002:a9fe:a9fe::1'];
    // Teredo carries the client address inverted: 0x5601 is 0xa9fe ^ 0xffff.
    for (const address of ['169.254.169.254', 'fd00:ec2::254', ...carriers, '2001:0:4136:e378:8000:63bf:5601:5601']) {
      expect(refusedAddress(address, { allowPrivateNetworks: true })).toMatch(/metadata/);
    }
    expect(refusedAddress('10.0.0.1', { allowPrivateNetworks: true })).toBeNull();
    expect(refusedAddress('::10.0.0.1', { allowPrivateNetworks: true })).toBeNull();
    expect(refusedAddress('93.184.215.14', { allowPrivateNetworks: false })).toBeNull();
    expect(refusedAddress('2606:4700::1111', { allowPrivateNetworks: false })).toBeNull();
    // Only the IPv4-compatible block: any other "unicast" IPv6 address ending in a private IPv4 is public.
    expect(refusedAddress('2606:4700::a00:1', { allowPrivateNetworks: false })).toBeNull();
  });

  test('what is not an IP address is refused with a reason, not an exception', () => {
    expect(refusedAddress('example.test', { allowPrivateNetworks: true })).toBe('example.test is not an IP address');
  });

  test('the connection-time lookup answers as node:dns does, with every address checked', async () => {
    const policy = { allowPrivateNetworks: false };
    const call = (hostname: string, options: { all?: boolean }, allow = policy) =>
      new Promise<unknown[]>((resolve) => safeLookup(allow)(hostname, options, (...args) => resolve(args)));
    dnsAnswers.set('public.test', [['93.184.215.14', '2606:4700::1111']]);
    expect(await call('public.test', { all: true })).toEqual([null, [{ address: '93.184.215.14', family: 4 }, { address: '2606:4700::1111', family: 6 }]]);
    expect(await call('public.test', {})).toEqual([null, '93.184.215.14', 4]);
    dnsAnswers.set('inside.test', [['93.184.215.14', '127.0.0.1']]);
    const [refusal, none] = await call('inside.test', { all: true });
    expect(refusal).toMatchObject({ name: 'OutboundAddressError', code: 'address', message: 'inside.test resolves to a refused address: 127.0.0.1 is not a public address (loopback)' });
    expect(none).toEqual([]);
    expect(await call('inside.test', {}, { allowPrivateNetworks: true })).toEqual([null, '93.184.215.14', 4]);
    dnsAnswers.set('gone.test', ['ENOTFOUND']);
    const [error, empty] = await call('gone.test', { all: true });
    expect(error).toMatchObject({ code: 'ENOTFOUND' });
    expect(empty).toEqual([]);
  });

  test('checked again at every send: a webhook whose name now resolves to loopback is not called', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      // As if it had been created when the name resolved elsewhere (or the switch was on then).
      const hook = await t.app.db.prisma.webhook.create({
        data: { orgId: t.org('acme').id, url: url.replace('http://127.0.0.1', 'https://localhost'), events: ['*'], secret: sealSecret(newSigningSecret(), undefined) },
      });
      const ping = await t.call('POST', `/api/webhooks/${hook.id}/ping`, { token: t.user('adam').token });
      expect(ping.status).toBe(201);
      const id = (await ping.json()).id;
      let delivery;
      for (let i = 0; i < 100; i++) {
        delivery = await t.app.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });
        if (delivery.attempts > 0 && !delivery.leaseUntil) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(delivery!.error).toMatch(/resolves to a refused address: (127\.0\.0\.1|::1) is not a public address/);
      expect(delivery!.state).toBe('pending'); // retried later: the name may resolve elsewhere again
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  test('checked where the connection is made: a name that resolves to loopback by then is not connected to (DNS rebinding)', async () => {
    const connections: Socket[] = [];
    const listener = createServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      // Public when sendWebhook checks the URL, loopback when the socket asks where to connect.
      dnsAnswers.set('rebind.test', [['93.184.215.14'], ['127.0.0.1']]);
      const port = (listener.address() as AddressInfo).port;
      const hook = await t.app.db.prisma.webhook.create({
        data: { orgId: t.org('acme').id, url: `https://rebind.test:${port}/hook`, events: ['*'], secret: sealSecret(newSigningSecret(), undefined) },
      });
      const ping = await t.call('POST', `/api/webhooks/${hook.id}/ping`, { token: t.user('adam').token });
      expect(ping.status).toBe(201);
      const id = (await ping.json()).id;
      let delivery;
      for (let i = 0; i < 100; i++) {
        delivery = await t.app.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });
        if (delivery.attempts > 0 && !delivery.leaseUntil) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(delivery!.error).toBe('rebind.test resolves to a refused address: 127.0.0.1 is not a public address (loopback)');
      expect(connections).toHaveLength(0);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
