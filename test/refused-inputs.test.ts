import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestApp, type TestApp } from './support/app.js';

// Issue 21.6: inputs the contract refuses are refused, every mistake named by its field.
describe('inputs the contract refuses', () => {
  let t: TestApp;
  let owner: string;
  let project: string;
  beforeAll(async () => {
    t = await startTestApp();
    owner = t.user('olivia').token;
    project = t.org('acme').projects[0]!.id;
  });
  afterAll(() => t?.close());

  const errorsOf = async (response: Response) => {
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; errors: { field: string; message: string }[] };
    expect(body.code).toBe('validation_failed');
    return body.errors;
  };

  test('unknown fields on invitations and joins', async () => {
    expect(
      await errorsOf(
        await t.call('POST', '/api/invitations', { token: owner, body: { role: 'member', colour: 'red' } }),
      ),
    ).toEqual([{ field: 'colour', message: 'is not a known field' }]);
    const cookie = await t.signIn('olivia@example.com');
    const join = await t.app.fetch(
      new Request(`${t.app.config.baseUrl}/api/orgs/join`, {
        method: 'POST',
        headers: { cookie, origin: t.app.config.baseUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ invite_code: 'inv_x', extra: true }),
      }),
    );
    expect(await errorsOf(join)).toEqual([{ field: 'extra', message: 'is not a known field' }]);
    expect(await t.app.db.prisma.invitation.count()).toBe(0);
  });

  test('null where a value is required: status, priority, expires_in_days, is_public', async () => {
    expect(
      await errorsOf(
        await t.call('POST', '/api/issues', {
          token: owner,
          body: { project_id: project, title: 'x', status: null, priority: null },
        }),
      ),
    ).toEqual([
      { field: 'status', message: 'cannot be null' },
      { field: 'priority', message: 'cannot be null' },
    ]);
    expect(
      await errorsOf(
        await t.call('POST', '/api/invitations', { token: owner, body: { role: 'member', expires_in_days: null } }),
      ),
    ).toEqual([{ field: 'expires_in_days', message: 'cannot be null' }]);
    const cookie = await t.signIn('olivia@example.com');
    const org = await t.app.fetch(
      new Request(`${t.app.config.baseUrl}/api/orgs`, {
        method: 'POST',
        headers: { cookie, origin: t.app.config.baseUrl, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Nulls', slug: 'nulls', is_public: null }),
      }),
    );
    expect(await errorsOf(org)).toEqual([{ field: 'is_public', message: 'cannot be null' }]);
  });

  test('a project key with a leading space', async () => {
    expect(
      await errorsOf(await t.call('POST', '/api/projects', { token: owner, body: { name: 'Spaced', key: ' SPC' } })),
    ).toEqual([{ field: 'key', message: 'must be 2 to 10 letters or digits, starting with a letter' }]);
  });

  test('fields named like Object.prototype members are unknown fields, named as sent', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const body = `{"project_id":"${project}","title":"x","${name}":1}`;
      const errors = await errorsOf(await t.call('POST', '/api/issues', { token: owner, body }));
      expect(errors).toEqual([{ field: name, message: 'is not a known field' }]);
    }
  });
});
