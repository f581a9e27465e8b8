// npm run seed [-- --json]: loads the demo data into DATABASE_URL and prints every user's API key once.
import { redactUrl } from '../config.js';
import { seedDemo } from './demo-data.js';
import { UsageError } from './usage-error.js';
import { withDatabase } from './open.js';

const asJson = process.argv.includes('--json');

const code = await withDatabase(async (db, config) => {
  try {
    const seed = await seedDemo(db.prisma);
    if (asJson) {
      process.stdout.write(`${JSON.stringify(seed, null, 2)}\n`);
      return 0;
    }
    const lines = [
      `Demo data loaded into ${redactUrl(config.databaseUrl)}.`,
      `Every user signs in with the password: ${seed.password}`,
      '',
      'API keys (shown once; only their hashes are stored):',
      ...seed.orgs.flatMap((org) => [
        `  ${org.name} (${org.slug}, org id ${org.id})`,
        ...seed.users
          .filter((u) => u.org_id === org.id)
          .map((u) => `    ${u.role.padEnd(8)} ${u.email.padEnd(22)} ${u.token}`),
      ]),
      '',
      `Try: curl -H "Authorization: Bearer ${seed.users[0]!.token}" ${config.baseUrl}/api/me/orgs`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
});
process.exit(code);
