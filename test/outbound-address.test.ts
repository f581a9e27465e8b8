import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, test, vi } from 'vitest';
import { checkOutboundUrl, refusedAddress, safeLookup, type OutboundPolicy } from '../src/http/outbound-address.js';
import { sendWebhook } from '../src/webhooks/send.js';
import { dnsAnswers } from './support/fake-dns.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

// The address rules without an app (test/webhooks-ssrf.test.ts checks them through webhook
// creation and delivery): the mutation group `outbound-address` runs this file once per mutant.
vi.mock('node:dns', async (importOriginal) =>
  (await import('./support/fake-dns.js')).withFakeLookup(await importOriginal()),
);

const PUBLIC: OutboundPolicy = { allowPrivateNetworks: false };
const PRIVATE: OutboundPolicy = { allowPrivateNetworks: true };

/** What checkOutboundUrl refuses `url` with, or the href it accepts. */
async function judged(url: string, policy = PUBLIC): Promise<string | { code: string; message: string }> {
  try {
    return (await checkOutboundUrl(url, policy)).href;
  } catch (error) {
    const { name, code, message } = error as { name: string; code: string; message: string };
    expect(name).toBe('OutboundAddressError');
    return { code, message };
  }
}

describe('refusedAddress', () => {
  test('the metadata addresses stay refused even where private networks are allowed', () => {
    const carriers = [
      '::ffff:169.254.169.254',
      '::169.254.169.254',
      '64:ff9b::169.254.169.254',
      '::ffff:0:169.254.169.254',
      '2002:a9fe:a9fe::1',
    ];
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
    expect(await call('public.test', { all: true })).toEqual([
      null,
      [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
    ]);
    expect(await call('public.test', {})).toEqual([null, '93.184.215.14', 4]);
    dnsAnswers.set('inside.test', [['93.184.215.14', '127.0.0.1']]);
    const [refusal, none] = await call('inside.test', { all: true });
    expect(refusal).toMatchObject({
      name: 'OutboundAddressError',
      code: 'address',
      message: 'inside.test resolves to a refused address: 127.0.0.1 is not a public address (loopback)',
    });
    expect(none).toEqual([]);
    expect(await call('inside.test', {}, { allowPrivateNetworks: true })).toEqual([null, '93.184.215.14', 4]);
    dnsAnswers.set('gone.test', ['ENOTFOUND']);
    const [error, empty] = await call('gone.test', { all: true });
    expect(error).toMatchObject({ code: 'ENOTFOUND' });
    expect(empty).toEqual([]);
  });
});

describe('checkOutboundUrl', () => {
  test('the URL itself: https (http too where private networks are allowed), absolute, no credentials', async () => {
    expect(await judged('http://93.184.215.14/hook')).toEqual({ code: 'scheme', message: 'must be an https URL' });
    expect(await judged('http://10.0.0.1/hook', PRIVATE)).toBe('http://10.0.0.1/hook');
    expect(await judged('ftp://10.0.0.1/hook', PRIVATE)).toEqual({
      code: 'scheme',
      message: 'must be an https or http URL',
    });
    expect(await judged('https://[/hook')).toEqual({ code: 'scheme', message: 'must be an absolute URL' });
    for (const url of ['https://user@93.184.215.14/', 'https://:pw@93.184.215.14/', 'https://user:pw@93.184.215.14/']) {
      expect(await judged(url, PRIVATE)).toEqual({
        code: 'scheme',
        message: 'must not contain a user name or password',
      });
    }
  });

  test('an IP literal is judged as it is, IPv6 without its brackets', async () => {
    expect(await judged('https://93.184.215.14/hook')).toBe('https://93.184.215.14/hook');
    expect(await judged('https://[2606:4700::1111]/hook')).toBe('https://[2606:4700::1111]/hook');
    expect(await judged('https://[::127.0.0.1]/hook')).toEqual({
      code: 'address',
      message: 'resolves to a refused address: ::7f00:1 is not a public address (IPv4-compatible form of 127.0.0.1)',
    });
  });

  test('a name: every address it resolves to is judged; no address, or no answer, is refused', async () => {
    dnsAnswers.set('public.test', [['93.184.215.14', '2606:4700::1111']]);
    dnsAnswers.set('mixed.test', [['93.184.215.14', '10.0.0.7']]);
    dnsAnswers.set('missing.test', ['ENOTFOUND']);
    dnsAnswers.set('empty.test', [[]]);
    expect(await judged('https://public.test/hook')).toBe('https://public.test/hook');
    expect(await judged('https://mixed.test/hook')).toEqual({
      code: 'address',
      message: 'resolves to a refused address: 10.0.0.7 is not a public address (private)',
    });
    expect(await judged('https://mixed.test/hook', PRIVATE)).toBe('https://mixed.test/hook');
    expect(await judged('https://missing.test/hook')).toEqual({
      code: 'resolution',
      message: 'cannot resolve missing.test',
    });
    expect(await judged('https://empty.test/hook')).toEqual({
      code: 'resolution',
      message: 'cannot resolve empty.test',
    });
  });
});

describe('sendWebhook', () => {
  test('DNS rebinding: a name public when checked and loopback when connected to is not connected to', async () => {
    const connections: Socket[] = [];
    const listener = createServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      dnsAnswers.set('rebind.test', [['93.184.215.14'], ['127.0.0.1']]);
      const port = (listener.address() as AddressInfo).port;
      const result = await sendWebhook(`https://rebind.test:${port}/hook`, {}, '{}', PUBLIC);
      expect(result).toMatchObject({
        status: null,
        error: 'rebind.test resolves to a refused address: 127.0.0.1 is not a public address (loopback)',
      });
      expect(connections).toHaveLength(0);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  test('where private networks are allowed, the connection goes to the address the lookup gave', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    try {
      dnsAnswers.set('receiver.test', [['127.0.0.1']]);
      const result = await sendWebhook(url.replace('127.0.0.1', 'receiver.test'), {}, '{"type":"ping"}', PRIVATE);
      expect(result).toMatchObject({ status: 200, error: null });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
