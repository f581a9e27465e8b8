import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formPost, ORIGIN, PASSWORD, startTestApp, type TestApp } from './support/app.js';

// `next` after sign-in: only pages of this service, judged as the browser will resolve the
// Location (tabs and newlines removed, `\` read as `/`), and never a 500.

let t: TestApp;
let cookie: string;
beforeAll(async () => {
  t = await startTestApp();
  cookie = await t.signIn('olivia@example.com');
});
afterAll(() => t.close());

/** `next` as sent in the query string (already percent-encoded) -> where we must send the browser. */
const CASES: [string, string][] = [
  ['/%09/attacker.example/x', '/'], // tab removed by the browser: //attacker.example/x
  ['/%0a/attacker.example/x', '/'],
  ['/%0d/attacker.example/x', '/'],
  ['%0d%0a//attacker.example', '/'],
  ['/x%0d%0aSet-Cookie:%20a=b', '/xSet-Cookie:%20a=b'], // no header injection: the newline is gone
  ['/%E3%80%80/attacker.example/x', '/%E3%80%80/attacker.example/x'], // U+3000 stays in the path, percent-encoded
  ['%E3%80%80//attacker.example', '/%E3%80%80//attacker.example'],
  ['/%5C/attacker.example', '/'], // /\/attacker.example
  ['https://attacker.example/', '/'],
  ['//attacker.example', '/'],
  ['javascript:alert(1)', '/'],
  ['http://localhost:4000@attacker.example/', '/'],
  // Same origin once resolved, but the path starts with `//`: as a Location it is protocol-relative.
  ['/a/..//attacker.example', '/'],
  ['/.//attacker.example/x', '/'],
  ['/a/%2e%2e//attacker.example', '/'],
  ['http://[', '/'], // does not parse
  [encodeURIComponent(`${ORIGIN}/orgs/acme?tab=keys#top`), '/orgs/acme?tab=keys#top'], // same origin, absolute
  [encodeURIComponent('/orgs/acme/settings/integrations?x=1'), '/orgs/acme/settings/integrations?x=1'],
];

describe('GET /login?next= when already signed in', () => {
  test.each(CASES)('next=%s redirects to %s', async (next, expected) => {
    const response = await t.call('GET', `/login?next=${next}`, { headers: { cookie } });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(expected);
  });
});

describe('GET /login?next= when signed out', () => {
  test.each(CASES)('next=%s is carried in the form as %s', async (next, expected) => {
    const response = await t.call('GET', `/login?next=${next}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`name="next" value="${expected.replace(/&/g, '&amp;')}"`);
  });
});

describe('POST /login with next', () => {
  test.each(CASES)('next=%s: 303 to %s with a working session cookie', async (next, expected) => {
    const request = formPost('/login', {
      email: 'olivia@example.com',
      password: PASSWORD,
      next: decodeURIComponent(next),
    });
    // An address per case: ten sign-ins per address and account are allowed per 15 minutes.
    const response = await t.app.fetch(request, { remoteAddress: `10.9.${CASES.findIndex(([n]) => n === next)}.1` });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(expected);
    const session = response.headers.get('set-cookie')?.split(';')[0];
    expect(session).toMatch(/^wm_session=/);
    expect((await t.call('GET', '/api/me', { headers: { cookie: session! } })).status).toBe(200);
  });

  test('a next that is not text at all falls back to /', async () => {
    const body = new FormData();
    body.set('email', 'olivia@example.com');
    body.set('password', PASSWORD);
    body.set('next', new Blob(['//attacker.example']), 'next.txt');
    const response = await t.app.fetch(
      new Request(`${ORIGIN}/login`, { method: 'POST', body, headers: { origin: ORIGIN } }),
      { remoteAddress: '10.9.200.1' },
    );
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
  });
});
