import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { EMAIL_MAX } from '../schema/people/fields.js';

/**
 * The bounds a schema's type or format already implies, written into the OpenAPI document
 * wherever a declaration left them implicit (OWASP API4, "unrestricted resource consumption":
 * a client or gateway can only enforce what the document states). Run over the whole generated
 * document, so routes added later get them too. What no type or format implies (the length of
 * free text, the size of a list) is declared with the field, from the operation's own limit;
 * test/openapi-contract.test.ts lists any left unbounded.
 */

/** Lengths a string format fixes. */
const FORMAT_MAX_LENGTH: Record<string, number> = {
  uuid: 36,
  // src/schema/core/dates.ts accepts at most `2026-01-31T12:00:00.123456789+05:30`; answers are 24 characters.
  'date-time': 35,
  email: EMAIL_MAX,
  // Our URLs (Location, problem types) are BASE_URL plus a short path; 2048 is what browsers and proxies reliably carry.
  uri: 2048,
};

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

type Node = Record<string, unknown>;

const hasType = (node: Node, type: string) =>
  node.type === type || (Array.isArray(node.type) && node.type.includes(type));

function bound(node: Node): void {
  if (hasType(node, 'string') && node.maxLength === undefined && node.enum === undefined && node.const === undefined) {
    const max = typeof node.format === 'string' ? FORMAT_MAX_LENGTH[node.format] : undefined;
    if (max !== undefined) node.maxLength = max;
  }
  if (hasType(node, 'integer')) {
    // zod's int() refuses what is not a safe integer, and every integer we answer is a JavaScript number.
    if (node.minimum === undefined && node.exclusiveMinimum === undefined) node.minimum = Number.MIN_SAFE_INTEGER;
    if (node.maximum === undefined && node.exclusiveMaximum === undefined) node.maximum = Number.MAX_SAFE_INTEGER;
    if (node.format === undefined) {
      const min = (node.minimum ?? node.exclusiveMinimum) as number;
      const max = (node.maximum ?? node.exclusiveMaximum) as number;
      node.format = min >= INT32.min && max <= INT32.max ? 'int32' : 'int64';
    }
  }
}

function walk(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const node = value as Node;
  bound(node);
  for (const [key, child] of Object.entries(node)) {
    // Examples are values, not schemas.
    if (key !== 'example' && key !== 'examples') walk(child);
  }
}

/** Writes the implied bounds into `document` (in place) and returns it. */
export function withImpliedBounds(document: OpenAPIObject): OpenAPIObject {
  walk(document);
  return document;
}
