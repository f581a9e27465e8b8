import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { sealSecret } from '../src/webhooks/secret-box.js';
import { newSigningSecret } from '../src/webhooks/signing.js';
import { startTestApp, type TestApp } from './support/app.js';
import { dnsAnswers } from './support/fake-dns.js';
import { expectProblem } from './support/problem.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

vi.mock('node:dns', async (importOriginal) =>
  (await import('./support/fake-dns.js')).withFakeLookup(await importOriginal()),
);

// WEBHOOKS_ALLOW_PRIVATE_NETWORKS off, as in production by default.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    webhooks: { allowPrivateNetworks: false, secretKey: undefined, worker: true, leaseSeconds: 60 },
  });
});
afterAll(() => t.close());

const create = (url: string) =>
  t.call('POST', '/api/webhooks', { token: t.user('adam').token, body: { url, events: ['*'] } });
const urlError = async (url: string) => (await expectProblem(await create(url), 400, 'validation_failed')).errors;

/** Pings the webhook and waits until the worker has tried its delivery once; the delivery row. */
async function pingAndWait(webhookId: string) {
  const ping = await t.call('POST', `/api/webhooks/${webhookId}/ping`, { token: t.user('adam').token });
  expect(ping.status).toBe(201);
  const id = (await ping.json()).id;
  let delivery = await t.app.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });
  for (let i = 0; i < 100 && !(delivery.attempts > 0 && !delivery.leaseUntil); i++) {
    await new Promise((r) => setTimeout(r, 100));
    delivery = await t.app.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id } });
  }
  return delivery;
}

describe('outbound address safety', () => {
  test('refused at creation: metadata, loopback, plain http, private names after DNS', async () => {
    expect(await urlError('http://169.254.169.254/latest/meta-data')).toEqual([
      { field: 'url', message: 'must be an https URL' },
    ]);
    expect(await urlError('https://169.254.169.254/latest/meta-data')).toEqual([
      { field: 'url', message: expect.stringMatching(/cloud metadata address/) },
    ]);
    expect(await urlError('https://[fd00:ec2::254]/')).toEqual([
      { field: 'url', message: expect.stringMatching(/cloud metadata address/) },
    ]);
    expect(await urlError('http://127.0.0.1:4200/hook')).toEqual([{ field: 'url', message: 'must be an https URL' }]);
    expect(await urlError('https://127.0.0.1/hook')).toEqual([
      { field: 'url', message: expect.stringMatching(/not a public address \(loopback\)/) },
    ]);
    expect(await urlError('https://10.0.0.8/hook')).toEqual([
      { field: 'url', message: expect.stringMatching(/private/) },
    ]);
    expect(await urlError('https://[::ffff:192.168.1.1]/hook')).toEqual([
      { field: 'url', message: expect.stringMatching(/private/) },
    ]);
    // A hostname is judged by what it resolves to.
    expect(await urlError('https://localhost/hook')).toEqual([
      {
        field: 'url',
        message: expect.stringMatching(/resolves to a refused address: (127\.0\.0\.1|::1) is not a public address/),
      },
    ]);
    expect(await urlError('https://user:pw@example.com/hook')).toEqual([
      { field: 'url', message: 'must not contain a user name or password' },
    ]);
    expect(await urlError('https://user@example.com/hook')).toEqual([
      { field: 'url', message: 'must not contain a user name or password' },
    ]);
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
    for (const [url, why] of cases)
      expect(await urlError(url)).toEqual([{ field: 'url', message: expect.stringMatching(why) }]);
  });

  test('refused at creation: a name that does not resolve, or resolves to nothing', async () => {
    dnsAnswers.set('missing.test', ['ENOTFOUND']);
    dnsAnswers.set('empty.test', [[]]);
    expect(await urlError('https://missing.test/hook')).toEqual([
      { field: 'url', message: 'cannot resolve missing.test' },
    ]);
    expect(await urlError('https://empty.test/hook')).toEqual([{ field: 'url', message: 'cannot resolve empty.test' }]);
  });

  test('a name is judged by every address it resolves to, not the first', async () => {
    dnsAnswers.set('mixed.test', [['93.184.215.14', '10.0.0.7']]);
    expect(await urlError('https://mixed.test/hook')).toEqual([
      { field: 'url', message: expect.stringMatching(/10\.0\.0\.7 is not a public address \(private\)/) },
    ]);
  });

  test('checked again at every send: a webhook whose name now resolves to loopback is not called', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      // As if it had been created when the name resolved elsewhere (or the switch was on then).
      const hook = await t.app.db.prisma.webhook.create({
        data: {
          orgId: t.org('acme').id,
          url: url.replace('http://127.0.0.1', 'https://localhost'),
          events: ['*'],
          secret: sealSecret(newSigningSecret(), undefined),
        },
      });
      const delivery = await pingAndWait(hook.id);
      expect(delivery.error).toMatch(/resolves to a refused address: (127\.0\.0\.1|::1) is not a public address/);
      expect(delivery.state).toBe('pending'); // retried later: the name may resolve elsewhere again
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
        data: {
          orgId: t.org('acme').id,
          url: `https://rebind.test:${port}/hook`,
          events: ['*'],
          secret: sealSecret(newSigningSecret(), undefined),
        },
      });
      const delivery = await pingAndWait(hook.id);
      expect(delivery.error).toBe(
        'rebind.test resolves to a refused address: 127.0.0.1 is not a public address (loopback)',
      );
      expect(connections).toHaveLength(0);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
