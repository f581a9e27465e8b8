import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { formPost } from '../support/app.js';
import { runAsync } from '../support/server-process.js';
import { startMailSink, type MailSink } from '../support/smtp-server.js';

const dir = mkdtempSync(join(tmpdir(), 'wm-mail-'));
const BASE = 'http://localhost:4000';
let mail: MailSink;
beforeAll(async () => {
  mail = await startMailSink();
});
afterAll(async () => {
  await mail?.close();
  rmSync(dir, { recursive: true, force: true });
});

// The command talks to an SMTP server in this process: it must not block this process (runAsync).
describe('password links go out by mail when SMTP_URL is set', { timeout: 180_000 }, () => {
  test('admin create-user mails the link; the link received sets the password', async () => {
    const { code, stdout, stderr } = await runAsync(
      `"${process.execPath}" --import tsx src/cli/admin.ts create-user --email Ada@Example.com --name Ada --username ada`,
      {
        DATABASE_URL: `file:${dir}`,
        BASE_URL: BASE,
        SMTP_URL: mail.url,
        MAIL_FROM: 'Operators <ops@example.com>',
        LOG_LEVEL: 'silent',
      },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const printed = JSON.parse(stdout);
    expect(printed).toMatchObject({ email: 'ada@example.com', password_link_mailed: true });

    expect(mail.received).toHaveLength(1);
    const [received] = mail.received;
    expect(received!.to).toEqual(['ada@example.com']);
    expect(received!.text).toContain('From: Operators <ops@example.com>');
    expect(received!.text).toContain('Subject: Set your workmgmt password');
    const link = /http:\/\/localhost:4000\/set-password\?token=[\w-]{43}/.exec(received!.text)?.[0];
    expect(link).toBe(printed.password_link);

    const app = await createApp(testConfig({ databaseUrl: `file:${dir}`, baseUrl: BASE, migrateOnStart: false }));
    try {
      const token = new URL(link!).searchParams.get('token')!;
      const set = await app.fetch(
        formPost('/set-password', {
          token,
          password: 'a long enough passphrase',
          confirmation: 'a long enough passphrase',
        }),
      );
      expect(set.status).toBe(303);
      const signIn = await app.fetch(
        formPost('/login', { email: 'ada@example.com', password: 'a long enough passphrase', next: '/' }),
      );
      expect(signIn.status).toBe(303);
    } finally {
      await app.close();
    }
  });
});
