import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { runCorpus, type Recorded } from './corpus.js';

// The answers of the REST surface before the route declarations replaced the hand-written
// routes; `RECORD_CORPUS=1 npx vitest run test/differential` writes them anew (look at the diff).
const FILE = new URL('./corpus.json', import.meta.url);

describe('differential corpus', () => {
  let t: TestApp;
  let answers: Recorded[];
  beforeAll(async () => {
    t = await startTestApp();
    answers = await runCorpus(t);
    if (process.env.RECORD_CORPUS === '1' && process.env.TEST_DB !== 'postgres') writeFileSync(FILE, `${JSON.stringify(answers, null, 1)}\n`);
  }, 120_000);
  afterAll(() => t?.close());

  it('answers every recorded request exactly as recorded', () => {
    const recorded = JSON.parse(readFileSync(FILE, 'utf8')) as Recorded[];
    expect(answers.length).toBe(recorded.length);
    for (const [n, answer] of answers.entries()) expect(answer, `request ${n}: ${recorded[n]!.request}`).toEqual(recorded[n]);
  });
});
