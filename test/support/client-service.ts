import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createApp, type App } from '../../src/app.js';
import { mintApiKey } from '../../src/auth/api-keys.js';
import { revokeApiKey } from '../../src/cli/operations.js';
import { testConfig, type Config } from '../../src/config.js';
import { createNodeServer } from '../../src/http/node-server.js';
import { MemoryStore } from '../../src/limits/memory-store.js';
import { startTestApp, type TestApp } from './app.js';

/**
 * The service as the client package meets it: on a real socket (the Node server of `npm start`),
 * its BASE_URL that socket's address (OAuth's issuer and the Link headers name it), its rate
 * limiter on a clock that `sleep` advances, so a client waiting a minute takes no time.
 */
export interface ClientService {
  t: TestApp;
  app: App;
  base: string;
  now(): number;
  /** Advances the limiter's clock: the client's `sleep`. */
  sleep(ms: number): Promise<void>;
  /** A new API key of a demo user (default mark, in acme), with a rate-limit budget of its own. */
  token(username?: string, org?: string): Promise<string>;
  /** Revokes a key made by `token`, as the operator's command does. */
  revoke(token: string): Promise<void>;
  close(): Promise<void>;
}

/** The service with its webhook worker on, delivering to a receiver on loopback (the tests' own address). */
export const DELIVERING_WEBHOOKS: Partial<Config> = {
  webhooks: {
    allowPrivateNetworks: true,
    secretKey: 'test key for sealing webhook secrets, 32+ chars',
    worker: true,
    leaseSeconds: 60,
  },
};

export async function startClientService(overrides: Partial<Config> = {}): Promise<ClientService> {
  const t = await startTestApp();
  let clock = 5_000_000;
  let app: App | undefined;
  const server = createNodeServer({ fetch: (request, info) => app!.fetch(request, info), config: t.app.config });
  // Long keep-alive: a loaded machine must not race an idle socket's close against fetch reusing it
  // (the client would retry, rightly, and the tests that count requests would count one more).
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await createApp(testConfig({ baseUrl: base, ...overrides }), {
    db: t.app.db,
    limiterStore: new MemoryStore({ now: () => clock }),
  });
  const running = app;
  const keyIds = new Map<string, string>();
  return {
    t,
    app: running,
    base,
    now: () => clock,
    async sleep(ms) {
      clock += ms;
    },
    async token(username = 'mark', org = 'acme') {
      const user = t.user(username, org);
      const minted = await mintApiKey(t.app.db.prisma, { userId: user.id, orgId: user.org_id, name: 'client test' });
      keyIds.set(minted.token, minted.key.id);
      return minted.token;
    },
    async revoke(token) {
      await revokeApiKey(t.app.db.prisma, keyIds.get(token)!, running.credentialEpoch);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await running.close();
      await t.close();
    },
  };
}
