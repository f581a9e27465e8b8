import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createUser } from '../src/cli/operations.js';
import { contractDocument } from '../src/rest/openapi-contract.js';
import { PROBLEM_LIMITS } from '../src/http/problem.js';
import { INPUT_LIMITS } from '../src/schema/core/input-shape.js';
import { startTestApp, type TestApp } from './support/app.js';

/**
 * openapi.json, the checked-in contract that CI lints (Spectral with the OWASP rules, Redocly)
 * and compares with its previous version: it must be what the code generates, and state the
 * bounds those linters ask for. The bounds a route's author must declare (free text, lists)
 * are listed here by path, so a route added without them fails with the place to fix.
 */
const document = JSON.parse(contractDocument());

type Node = Record<string, unknown>;

/** Every schema-like object of the document, with its JSON path (examples are values, skipped). */
function* nodes(value: unknown, path: string): Generator<[string, Node]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* nodes(item, `${path}/${i}`);
    return;
  }
  if (!value || typeof value !== 'object') return;
  yield [path, value as Node];
  for (const [key, child] of Object.entries(value))
    if (key !== 'example' && key !== 'examples') yield* nodes(child, `${path}/${key}`);
}

const typed = (node: Node, type: string) =>
  node.type === type || (Array.isArray(node.type) && node.type.includes(type));

test('openapi.json is the generated document (else: npm run openapi:print)', () => {
  expect(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')).toBe(contractDocument());
});

describe('every schema is bounded (OWASP API4)', () => {
  const all = [...nodes(document, '#')];
  test('strings: maxLength, enum or const (declare free text with the limit of the operation that writes it)', () => {
    expect(
      all
        .filter(
          ([, n]) => typed(n, 'string') && n.maxLength === undefined && n.enum === undefined && n.const === undefined,
        )
        .map(([p]) => p),
    ).toEqual([]);
  });
  test('arrays: maxItems (a list route returns at most its bound)', () => {
    expect(all.filter(([, n]) => typed(n, 'array') && n.maxItems === undefined).map(([p]) => p)).toEqual([]);
  });
  test('integers: a format and both bounds', () => {
    expect(
      all
        .filter(
          ([, n]) =>
            typed(n, 'integer') && (n.format === undefined || n.minimum === undefined || n.maximum === undefined),
        )
        .map(([p]) => p),
    ).toEqual([]);
  });
});

describe('what the document bounds, the service keeps to', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  test('a validation problem lists at most the documented number of field errors, each clipped', async () => {
    const body: Record<string, string> = { name: 'Bounded', key: 'BND' };
    // Names as long as the input rule admits (longer ones are refused whole, src/schema/core/input-shape.ts).
    for (let i = 0; i < 30; i++) body[`unknown_${i}_`.padEnd(INPUT_LIMITS.name, 'k')] = 'x';
    const response = await t.call('POST', '/api/projects', { token: t.user('olivia').token, body });
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem.errors).toHaveLength(30);
    for (const error of problem.errors) {
      expect(error.field.length).toBeLessThanOrEqual(PROBLEM_LIMITS.fieldText);
      expect(error.message.length).toBeLessThanOrEqual(PROBLEM_LIMITS.fieldText);
    }
    expect(problem.detail.length).toBeLessThanOrEqual(PROBLEM_LIMITS.detail);
    // More mistakes than a problem lists: a bulk create of the most items, each with two.
    const bulk = await t.call('POST', '/api/issues/bulk', {
      token: t.user('olivia').token,
      body: { issues: Array.from({ length: 100 }, () => ({ project_id: 'NOPE', title: '' })) },
    });
    expect(bulk.status).toBe(400);
    expect((await bulk.json()).errors).toHaveLength(PROBLEM_LIMITS.fieldErrors);
    const schema = document.components.schemas.ValidationProblem.properties.errors;
    expect(schema.maxItems).toBe(PROBLEM_LIMITS.fieldErrors);
  });

  test('a user over the documented limits is refused where users are made', async () => {
    const nameMax: number = document.components.schemas.User.properties.name.maxLength;
    await expect(
      createUser(t.app.db.prisma, { email: 'long@example.com', name: 'n'.repeat(nameMax + 1), username: 'long' }),
    ).rejects.toThrow(/name/);
    const user = await createUser(t.app.db.prisma, {
      email: 'fits@example.com',
      name: 'n'.repeat(nameMax),
      username: 'fits',
    });
    expect(user.name).toHaveLength(nameMax);
  });
});
