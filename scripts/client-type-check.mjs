// The client package's half of the contract check (scripts/contract-check.mjs): generates the
// typed client (clients/typescript/scripts/generate.mjs) from two versions of openapi.json and
// asks the TypeScript compiler whether code written against the first still compiles against the
// second. An operation (a method) or an exported type that disappears breaks it; so does a
// request type (an operation's `...Data`, or a schema a request body or parameter uses) that no
// longer accepts what it accepted, and a response type whose values no longer fit what it was
// (a field removed or made optional, a type changed, an enum value added where code switches on it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from '../clients/typescript/scripts/generate.mjs';

const require = createRequire(import.meta.url);

const exportedTypes = (source) => new Set([...source.matchAll(/^export type (\w+)/gm)].map((m) => m[1]));

/** The operationIds, which the generator turns into the client's method names. */
function operationIds(document) {
  const ids = new Set();
  for (const item of Object.values(document.paths ?? {}))
    for (const operation of Object.values(item ?? {}))
      if (typeof operation?.operationId === 'string') ids.add(operation.operationId);
  return ids;
}

/** Lowercased names of the component schemas requests use (bodies and parameters, and what they refer to). */
function requestSchemas(document) {
  const found = new Set();
  const visit = (value) => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    const ref = typeof value.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(value.$ref)?.[1] : undefined;
    if (ref && !found.has(ref.toLowerCase())) {
      found.add(ref.toLowerCase());
      visit(document.components?.schemas?.[ref]);
    }
    for (const child of Object.values(value)) visit(child);
  };
  for (const item of Object.values(document.paths ?? {}))
    for (const operation of Object.values(item ?? {})) {
      if (!operation || typeof operation !== 'object') continue;
      visit(operation.requestBody);
      visit(operation.parameters);
    }
  return found;
}

/** The incompatible changes to the generated client's public types between two documents, as lines. */
export async function clientTypeBreaks(before, after) {
  const dir = mkdtempSync(join(tmpdir(), 'client-types-'));
  try {
    writeFileSync(join(dir, 'before.json'), before);
    writeFileSync(join(dir, 'after.json'), after);
    await Promise.all(
      ['before', 'after'].map((side) => generate(join(dir, `${side}.json`), join(dir, side), { typesOnly: true })),
    );
    const [oldSource, newSource] = ['before', 'after'].map((side) =>
      readFileSync(join(dir, side, 'types.gen.ts'), 'utf8'),
    );
    const breaks = [];
    const newMethods = operationIds(JSON.parse(after));
    for (const id of operationIds(JSON.parse(before)))
      if (!newMethods.has(id)) breaks.push(`client method ${id}() removed`);
    if (oldSource === newSource) return breaks;
    const [oldTypes, newTypes] = [exportedTypes(oldSource), exportedTypes(newSource)];
    for (const name of oldTypes) if (!newTypes.has(name)) breaks.push(`client type ${name} removed`);

    const requests = new Set([...requestSchemas(JSON.parse(before)), ...requestSchemas(JSON.parse(after))]);
    const checks = [];
    for (const name of oldTypes) {
      if (!newTypes.has(name)) continue;
      const operationInput = name.endsWith('Data') && oldTypes.has(`${name.slice(0, -4)}Responses`);
      const request = operationInput || requests.has(name.toLowerCase());
      if (request) checks.push({ name, from: 'Before', to: 'After', why: 'no longer accepts what it accepted' });
      if (!operationInput)
        checks.push({
          name,
          from: 'After',
          to: 'Before',
          why: 'may now hold what code written for it does not expect',
        });
    }
    const lines = [
      "import type * as Before from './before/types.gen.js';",
      "import type * as After from './after/types.gen.js';",
      ...checks.map(
        ({ name, from, to }) => `export const c: [${from}.${name}] extends [${to}.${name}] ? true : false = true;`,
      ),
    ];
    // Each check's line number (1-based) is its index plus the two import lines plus one.
    writeFileSync(join(dir, 'check.ts'), lines.map((line, i) => line.replace('const c:', `const c${i}:`)).join('\n'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          skipLibCheck: true,
          target: 'ES2022',
          lib: ['ES2023', 'DOM'],
        },
        files: ['check.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
    const failed = new Set([...tsc.stdout.matchAll(/check\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1]) - 3));
    if (tsc.status !== 0 && failed.size === 0)
      throw new Error(`tsc failed on the generated clients:\n${tsc.stdout}${tsc.stderr}`);
    for (const index of [...failed].sort((a, b) => a - b)) {
      const { name, why } = checks[index];
      breaks.push(`client type ${name} ${why}`);
    }
    return breaks;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
