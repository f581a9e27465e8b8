import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { refusedAddress } from '../src/http/outbound-address.js';
import { sealSecret } from '../src/webhooks/secret-box.js';
import { newSigningSecret } from '../src/webhooks/signing.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

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
  });

  test('the metadata addresses stay refused even where private networks are allowed', () => {
    for (const address of ['169.254.169.254', 'fd00:ec2::254', '::ffff:169.254.169.254']) {
      expect(refusedAddress(address, { allowPrivateNetworks: true })).toMatch(/metadata/);
    }
    expect(refusedAddress('10.0.0.1', { allowPrivateNetworks: true })).toBeNull();
    expect(refusedAddress('93.184.215.14', { allowPrivateNetworks: false })).toBeNull();
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
});
