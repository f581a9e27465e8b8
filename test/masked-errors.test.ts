import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { createApp } from '../src/app.js';
import { seedDemo } from '../src/cli/demo-data.js';
import { testConfig } from '../src/config.js';
import { openTestDatabase } from './support/database.js';

describe('unexpected failures', () => {
  test('are masked on both surfaces, logged, and never leak internals', async () => {
    const db = await openTestDatabase();
    const seed = await seedDemo(db.prisma, { password: 'correct horse battery staple' });
    const lines: string[] = [];
    const app = await createApp(testConfig(), {
      db,
      logger: pino({ level: 'error' }, { write: (line: string) => void lines.push(line) }),
    });
    const token = seed.users[0]!.token;
    const auth = { authorization: `Bearer ${token}` };
    // Break the database under the app, after authentication has something to find: the issues table goes away.
    await db.prisma.$executeRawUnsafe('ALTER TABLE issues RENAME TO issues_gone');
    try {
      const gql = await app.fetch(
        new Request('http://localhost:4000/api/graphql', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ issues(first: 1) { edges { node { id } } } }' }),
        }),
      );
      const body = await gql.json();
      expect(body.errors[0].message).toBe('Unexpected error.');
      expect(body.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
      expect(JSON.stringify(body)).not.toMatch(/issues|relation|prisma|stack/i);

      const rest = await app.fetch(new Request('http://localhost:4000/api/issues', { headers: auth }));
      expect(rest.status).toBe(500);
      const problem = await rest.json();
      expect(problem).toMatchObject({ status: 500, code: 'internal' });
      expect(JSON.stringify(problem)).not.toMatch(/relation|prisma|stack/i);
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(lines.join('\n')).not.toContain(token);
    } finally {
      await db.prisma.$executeRawUnsafe('ALTER TABLE issues_gone RENAME TO issues');
      await app.close();
      await db.close();
    }
  });
});
