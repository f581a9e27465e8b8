import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type ClientService, DELIVERING_WEBHOOKS, startClientService } from '../support/client-service.js';
import { root } from '../support/server-process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// What a new user does: `npm pack` the client package, `npm install` the tarball in an empty
// folder, and run the documentation's examples, compiled by tsc against the installed package,
// against the service (on a socket here): list and create issues, export 10,000 issues with 4
// API keys, verify a webhook. Embedded database only: the package is the subject, not the data.
const run = promisify(execFile);
/** The environment of a child: npm's own variables of this run (workspace, prefix, ...) left out. */
const childEnv = (env: Record<string, string> = {}) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_|^VITEST|^BASE_URL$/i.test(name))),
  ...env,
});

/** The ```ts blocks of a document that start with `// <name>.ts`, by name. */
function examples(document: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, code] of readFileSync(join(root, document), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```/gm)) {
    const name = /^\/\/ ([\w-]+)\.ts\n/.exec(code!)?.[1];
    if (name) found.set(name, code!);
  }
  return found;
}
const DOCUMENTS = { readme: 'README.md', docs: 'docs/client.md', package: 'clients/typescript/README.md' };

let s: ClientService;
let receiver: WebhookReceiver;
let app: string;
let hookUrl: string;
beforeAll(async () => {
  s = await startClientService(DELIVERING_WEBHOOKS);
  receiver = new WebhookReceiver();
  hookUrl = await receiver.start();
  app = mkdtempSync(join(tmpdir(), 'wm-client-user-'));
}, 120_000);
afterAll(async () => {
  await s?.close();
  await receiver?.close();
  rmSync(app, { recursive: true, force: true });
});

describe('the packed client in an empty project', () => {
  test('npm pack, npm install of the tarball, the examples compiled by tsc and run against the service', {
    timeout: 300_000,
  }, async () => {
    // The package's version is the API's.
    const manifest = JSON.parse(readFileSync(join(root, 'clients/typescript/package.json'), 'utf8'));
    expect(manifest.version).toBe(JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8')).info.version);

    const packed = await run('npm', ['pack', '--pack-destination', app], {
      cwd: join(root, 'clients/typescript'),
      env: childEnv(),
    });
    const tarball = join(app, packed.stdout.trim().split('\n').at(-1)!);
    expect(tarball).toMatch(/workmgmt-client-1\.0\.0\.tgz$/);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }));
    // From the local cache when it holds the dependencies; else the registry.
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: app,
      env: childEnv(),
    });
    expect(readdirSync(join(app, 'node_modules/@workmgmt/client/dist'))).toContain('index.d.ts');

    // Every example of the three documents, compiled as a user's project would (no DOM library: Node's types only).
    mkdirSync(join(app, 'src'));
    const written: string[] = [];
    for (const [prefix, document] of Object.entries(DOCUMENTS)) {
      for (const [name, code] of examples(document)) {
        writeFileSync(join(app, 'src', `${prefix}-${name}.ts`), code);
        written.push(`${prefix}-${name}`);
      }
    }
    expect(written.sort()).toEqual(
      [
        'docs-errors',
        'docs-export',
        'docs-paging',
        'docs-quick-start',
        'docs-sign-in',
        'docs-webhook',
        'package-quick-start',
        'readme-quick-start',
      ].sort(),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          outDir: 'out',
          rootDir: 'src',
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        include: ['src'],
      }),
    );
    const tsc = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', app], {
      cwd: app,
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(tsc.stdout).toBe('');

    const adam = await s.token('adam');
    const env = childEnv({ WM_BASE_URL: s.base, WM_TOKEN: adam });
    const example = async (name: string, extra: Record<string, string> = {}) =>
      (await run(process.execPath, [`out/${name}.js`], { cwd: app, env: { ...env, ...extra } })).stdout;

    // List and create issues, with types.
    for (const name of ['readme-quick-start', 'docs-quick-start', 'package-quick-start'])
      expect(await example(name)).toMatch(/^created WEB-\d+ \(Backlog\)\n/);
    expect(await example('docs-errors')).toMatch(/^title: /);
    expect(await example('docs-paging')).toMatch(/^\d+ issues; WEB-1: /);

    // Export 10,000 issues (and the demo's) with 4 API keys.
    const org = s.t.org('acme');
    for (let p = 0; p < 4; p++) {
      const project = await s.t.app.db.prisma.project.create({
        data: { orgId: org.id, name: `Export ${p}`, key: `EXP${p}` },
      });
      await s.t.app.db.prisma.issue.createMany({
        data: Array.from({ length: 2500 }, (_, i) => ({
          orgId: org.id,
          projectId: project.id,
          number: i + 1,
          title: `export ${p}.${i}`,
          status: 'Todo',
          priority: 'low',
        })),
      });
    }
    const tokens = await Promise.all(['olivia', 'adam', 'maya', 'mark'].map((u) => s.token(u)));
    const exported = await example('docs-export', { WM_TOKENS: tokens.join(',') });
    const total = await s.t.app.db.prisma.issue.count({ where: { orgId: org.id } });
    expect(total).toBeGreaterThan(10_000);
    expect(exported).toMatch(new RegExp(`^exported ${total} issues; waited \\d+ ms for rate limits\\n$`));
    const lines = readFileSync(join(app, 'issues.ndjson'), 'utf8').trimEnd().split('\n');
    expect(new Set(lines.map((line) => JSON.parse(line).id)).size).toBe(total);

    // Verify a webhook the service signed: the route answers 204, and 400 to the same delivery tampered with.
    const { WorkmgmtClient } = await import('@workmgmt/client');
    const wm = new WorkmgmtClient({ baseUrl: s.base, token: adam });
    const { data: hook } = await wm.createWebhook({ body: { url: hookUrl, events: ['issue.created'] } });
    await wm.createIssue({ body: { project_id: 'WEB', title: 'Webhook example' } });
    await receiver.waitFor(1);
    const delivery = receiver.received[0]!;
    const route = `
      import { POST } from './out/docs-webhook.js';
      const { body, headers } = JSON.parse(process.env.DELIVERY);
      const answer = await POST(new Request('http://localhost/hook', { method: 'POST', headers, body }));
      console.log(answer.status);`;
    const deliver = async (body: string) =>
      (
        await run(process.execPath, ['--input-type=module', '-e', route], {
          cwd: app,
          env: { ...env, WEBHOOK_SECRET: hook.secret!, DELIVERY: JSON.stringify({ body, headers: delivery.headers }) },
        })
      ).stdout;
    expect(await deliver(delivery.body)).toMatch(/^new issue WEB-\d+: Webhook example\n204\n$/);
    expect(await deliver(delivery.body.replace('Webhook example', 'Forged example'))).toBe('400\n');
  });
});
