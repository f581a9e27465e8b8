import { createApp, type App } from '../../src/app.js';
import { testConfig, type Config } from '../../src/config.js';
import { seedDemo, type DemoSeed } from '../../src/cli/demo-data.js';
import type { LimiterStore } from '../../src/limits/store.js';
import { openTestDatabase } from './database.js';

export interface TestApp {
  app: App;
  seed: DemoSeed;
  /** A request through the real stack (`app.fetch`), no socket. */
  call(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  /** The demo user with this username, in this org slug (default acme). */
  user(username: string, orgSlug?: string): DemoSeed['users'][number];
  org(slug: string): DemoSeed['orgs'][number];
  /** Signs in through POST /login as a browser would; returns the session cookie ("name=value"). */
  signIn(email: string, password?: string): Promise<string>;
  close(): Promise<void>;
}

export const ORIGIN = 'http://localhost:4000';
export const PASSWORD = 'correct horse battery staple';

/** A form POST as a browser sends it from one of our pages. */
export function formPost(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}${path}`, {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

/** A migrated database with the demo seed, and the app over it. */
export async function startTestApp(
  overrides: Partial<Config> = {},
  options: { limiterStore?: LimiterStore } = {},
): Promise<TestApp> {
  const db = await openTestDatabase();
  const seed = await seedDemo(db.prisma, { password: PASSWORD });
  const app = await createApp(testConfig(overrides), { db, limiterStore: options.limiterStore });
  const base = app.config.baseUrl;
  return {
    app,
    seed,
    call(method, path, { token, body, headers = {} } = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      if (token) (init.headers as Record<string, string>).authorization = `Bearer ${token}`;
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
      return app.fetch(new Request(`${base}${path}`, init));
    },
    user(username, orgSlug = 'acme') {
      const org = seed.orgs.find((o) => o.slug === orgSlug)!;
      const found = seed.users.find((u) => u.username === username && u.org_id === org.id);
      if (!found) throw new Error(`no demo user ${username} in ${orgSlug}`);
      return found;
    },
    org(slug) {
      return seed.orgs.find((o) => o.slug === slug)!;
    },
    async signIn(email, password = PASSWORD) {
      const response = await app.fetch(formPost('/login', { email, password, next: '/' }));
      if (response.status !== 303) throw new Error(`sign-in as ${email} failed: ${response.status}`);
      return response.headers.get('set-cookie')!.split(';')[0]!;
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
}
