import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No object literal in src/ declares a getter or setter. V8 gives each such literal's accessor a
 * new accessor pair and closure, and the benchmark measured what that does on a hot path: the
 * rows a literal's getter closed over survived the young generation (about 90 KB promoted per
 * REST page, the collector at 14% of the request's CPU). A class with the accessor on its
 * prototype costs nothing of the kind (src/schema/issues/operations.ts). Generated code is left out.
 */
const SRC = join(import.meta.dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line` of every getter or setter written in an object literal. */
function literalAccessors(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) &&
      ts.isObjectLiteralExpression(node.parent)
    ) {
      found.push(`${fileName}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('object literals with accessors', () => {
  it('are found where they are written (the check itself)', () => {
    const text =
      'class Edge { get cursor() { return 1; } }\nconst edge = {\n  node: 1,\n  get cursor() { return 2; },\n  set cursor(v) {},\n};';
    expect(literalAccessors('example.ts', text)).toEqual(['example.ts:4', 'example.ts:5']);
  });

  it('appear nowhere in src/', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((path) =>
      literalAccessors(relative(join(SRC, '..'), path), readFileSync(path, 'utf8')),
    );
    expect(found).toEqual([]);
  });
});
