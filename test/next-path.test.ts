import { describe, expect, test } from 'vitest';
import { safeNextPath } from '../src/web/next-path.js';

// The rule of test/sign-in-next.test.ts (which checks it through sign-in), without an app: the
// mutation group `next-path` runs this file once per mutant.

const BASE = 'http://localhost:4000';

const CASES: [unknown, string][] = [
  ['/\t/attacker.example/x', '/'], // tab removed by the browser: //attacker.example/x
  ['/\n/attacker.example/x', '/'],
  ['\r\n//attacker.example', '/'],
  ['/\\/attacker.example', '/'],
  ['https://attacker.example/', '/'],
  ['//attacker.example', '/'],
  ['javascript:alert(1)', '/'],
  ['/a/..//attacker.example', '/'], // same origin once resolved, but `//attacker.example` as a Location
  ['/.//attacker.example/x', '/'],
  ['http://[', '/'], // does not parse
  ['', '/'],
  [42, '/'],
  [null, '/'],
  ['/x\r\nSet-Cookie: a=b', '/xSet-Cookie:%20a=b'],
  [`${BASE}/orgs/acme?tab=keys#top`, '/orgs/acme?tab=keys#top'],
  ['/orgs/acme/settings/integrations?x=1', '/orgs/acme/settings/integrations?x=1'],
  ['orgs/acme', '/orgs/acme'],
  ['/a//', '/a//'], // a double slash further on is a path like any other
];

describe('safeNextPath', () => {
  test.each(CASES)('%j -> %s', (next, expected) => {
    expect(safeNextPath(next, BASE)).toBe(expected);
  });
});

test('an empty next is /, also where BASE_URL has a path', () => {
  expect(safeNextPath('', `${BASE}/app`)).toBe('/');
  expect(safeNextPath('orgs/acme', `${BASE}/app/`)).toBe('/app/orgs/acme');
});
