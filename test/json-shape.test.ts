import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { INPUT_LIMITS, inputShapeError, WIDTH } from '../src/schema/core/input-shape.js';
import { jsonShapeError, type InputAt } from '../src/schema/core/json-shape.js';

/**
 * The scan of a JSON text (src/schema/core/json-shape.ts) finds what inputShapeError finds on the
 * parsed value, without parsing it: the same limits, the same words, the same paths.
 */

const WHOLE: InputAt = { root: 'body', path: [] };
const fields = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]));
const nested = (levels: number) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`) as unknown;

/** Values at, just over and far over each limit, alone and deep inside others. */
const CASES: Record<string, unknown> = {
  'fields at the limit': fields(INPUT_LIMITS.fields),
  'one field over': fields(INPUT_LIMITS.fields + 1),
  '60,000 fields': fields(60_000),
  'a wide object deep inside': { x: [{ y: fields(200) }] },
  'items at the limit': { s: Array(INPUT_LIMITS.items).fill('X') },
  'one item over': { s: Array(INPUT_LIMITS.items + 1).fill('X') },
  '200,000 items in a nested list': { and: [{ status: Array(200_000).fill('X') }] },
  'a list of lists, the second over': {
    list: [
      [1, 2],
      [3, Array(INPUT_LIMITS.items + 1).fill(0)],
    ],
  },
  'a string at the limit': { q: 'x'.repeat(INPUT_LIMITS.text) },
  'a string one over': { q: 'x'.repeat(INPUT_LIMITS.text + 1) },
  // Escapes make the text longer than the string: `\n` is one character.
  'an escaped string at the limit': { q: '\n'.repeat(INPUT_LIMITS.text) },
  'an escaped string one over': { q: `${'\n'.repeat(INPUT_LIMITS.text)}é` },
  'a field name at the limit': { [`${'k'.repeat(INPUT_LIMITS.name - 1)}"`]: 1 },
  'a field name one over': { not: { ['k'.repeat(INPUT_LIMITS.name + 1)]: 1 } },
  'values over in all': {
    and: Array.from({ length: Math.ceil((INPUT_LIMITS.values + 1) / INPUT_LIMITS.items) }, () => ({
      in: Array(INPUT_LIMITS.items).fill(1),
    })),
  },
  'nested to the depth limit': nested(INPUT_LIMITS.depth + 1),
  'one level deeper': nested(INPUT_LIMITS.depth + 2),
  'items at the limit, printed with spaces and new lines': {
    text: JSON.stringify({ s: Array(INPUT_LIMITS.items).fill(0) }, null, 2),
    value: { s: Array(INPUT_LIMITS.items).fill(0) },
  },
  'a root list at the item limit, printed with spaces and new lines': {
    text: JSON.stringify(Array(INPUT_LIMITS.items).fill(0), null, 2),
    value: Array(INPUT_LIMITS.items).fill(0),
  },
  'numbers and literals of many characters, at the item limit': {
    n: Array.from({ length: INPUT_LIMITS.items }, (_, i) => [12345.5e-3, true, false, null][i % 4]),
  },
  'a list at the root, one item over': Array(INPUT_LIMITS.items + 1).fill(1),
  'a string at the root, one over': 'x'.repeat(INPUT_LIMITS.text + 1),
  // Exactly the limit: the root list, 19 lists of 1,000 (1,001 values each) and 980 numbers.
  'values exactly at the limit': [
    ...Array.from({ length: 19 }, () => Array(INPUT_LIMITS.items).fill(1)),
    ...Array(980).fill(1),
  ],
  'values one over the limit': [
    ...Array.from({ length: 19 }, () => Array(INPUT_LIMITS.items).fill(1)),
    ...Array(981).fill(1),
  ],
  // Quotes and backslashes in strings: a scan that ends a string at an escaped quote, or not at a
  // quote after an escaped backslash, would read the fields written inside it.
  'escaped quotes around text that looks like fields': { s: `"${',"k":1'.repeat(150)}"`, t: `${'\\'.repeat(3)}"` },
  'strings ending in backslashes, before a wide list': {
    a: 'x\\',
    b: '\\\\',
    c: { d: Array(INPUT_LIMITS.items + 1).fill(0) },
  },
  'an escaped field name in the path': { 'a"b\\c\u00e9': { d: Array(INPUT_LIMITS.items + 1).fill(0) } },
  'mixed kinds': [[1, -2.5e3, [3, { a: [true, null, 'x"y\\'] }]], {}, []],
  'a string root': 'str',
  'a number root': 5,
  null: null,
};

describe('jsonShapeError agrees with inputShapeError on the parsed value', () => {
  for (const [name, value] of Object.entries(CASES)) {
    test(name, () => {
      // A case may give its text (spaced out, say) beside its value.
      const given =
        typeof value === 'object' && value !== null && 'text' in value && 'value' in value
          ? (value as { text: string; value: unknown })
          : null;
      const text = given ? given.text : JSON.stringify(value);
      expect(jsonShapeError(text, WHOLE)).toEqual(inputShapeError(given ? given.value : value, 'body'));
    });
  }

  test('far deeper than the limit (deeper than JSON.stringify can write): the depth limit where it is passed', () => {
    const text = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(jsonShapeError(text, WHOLE)).toEqual(inputShapeError(JSON.parse(text), 'body'));
  });

  test('strings of quotes, backslashes and punctuation, before a wide list and a deep one, are read as JSON.parse reads them', () => {
    const tricky = fc.string({
      unit: fc.constantFrom('"', '\\', ',', ':', '{', '[', ']', '}', 'a', ' '),
      maxLength: 30,
    });
    fc.assert(
      fc.property(tricky, tricky, (key, text) => {
        const value = { [key]: text, w: { [text]: Array(INPUT_LIMITS.items + 1).fill(0) } };
        expect(jsonShapeError(JSON.stringify(value), WHOLE)).toEqual(inputShapeError(value, 'body'));
        const within = { [key]: [text, { [text]: 1 }], n: nested(INPUT_LIMITS.depth) };
        expect(jsonShapeError(JSON.stringify(within), WHOLE)).toEqual(inputShapeError(within, 'body'));
      }),
      { numRuns: 300 },
    );
  });

  test('the finding names the limit', () => {
    expect(jsonShapeError(JSON.stringify(CASES['one field over']), WHOLE)).toEqual({
      field: 'body',
      message: WIDTH.fields,
    });
    expect(jsonShapeError(JSON.stringify(CASES['200,000 items in a nested list']), WHOLE)).toEqual({
      field: 'and.0.status',
      message: WIDTH.items,
    });
  });

  test('any JSON value within the limits passes, whatever its text (escapes, unicode, spacing)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, space) => {
        expect(jsonShapeError(JSON.stringify(value, null, space), WHOLE)).toEqual(inputShapeError(value, 'body'));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the input within a body', () => {
  const VARIABLES: InputAt = { root: 'variables', path: ['variables'] };
  const BATCH: InputAt = { root: 'arguments', path: ['*', 'params', 'arguments'] };

  test('only the input is checked: the rest of the body may hold what the input may not', () => {
    const outside = {
      long: 'q'.repeat(INPUT_LIMITS.text + 10),
      wide: fields(300),
      list: Array(INPUT_LIMITS.items + 1).fill(1),
      many: Array.from({ length: 21 }, () => Array(INPUT_LIMITS.items).fill(1)),
    };
    const body = {
      query: 'q'.repeat(INPUT_LIMITS.text + 10),
      extensions: outside,
      variables: { f: { status: ['OPEN'] } },
    };
    expect(jsonShapeError(JSON.stringify(body), VARIABLES)).toBeNull();
    expect(jsonShapeError(JSON.stringify({ ...body, variables: { f: fields(101) } }), VARIABLES)).toEqual({
      field: 'f',
      message: WIDTH.fields,
    });
    // Paths start at the input, whatever is around it.
    const long = { f: { q: 'x'.repeat(INPUT_LIMITS.text + 1) } };
    expect(jsonShapeError(JSON.stringify({ ...body, variables: long }), VARIABLES)).toEqual(
      inputShapeError(long, 'variables'),
    );
    expect(jsonShapeError(JSON.stringify({ ...body, variables: long }), VARIABLES)).toEqual({
      field: 'f.q',
      message: expect.stringContaining('characters long'),
    });
    const deep = { f: nested(INPUT_LIMITS.depth + 5) };
    expect(jsonShapeError(JSON.stringify({ ...body, variables: deep }), VARIABLES)).toEqual(
      inputShapeError(deep, 'variables'),
    );
  });

  test('a field named like the input elsewhere is not the input', () => {
    expect(jsonShapeError(JSON.stringify({ other: { variables: fields(200) }, variables: {} }), VARIABLES)).toBeNull();
    expect(jsonShapeError(JSON.stringify([{ variables: fields(200) }]), VARIABLES)).toBeNull();
  });

  test('each input of a batch is counted on its own, and named as inputShapeError names it', () => {
    const call = (args: unknown) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 't', arguments: args },
    });
    const half = {
      l: Array.from({ length: INPUT_LIMITS.values / 2 / INPUT_LIMITS.items }, () =>
        Array(INPUT_LIMITS.items - 1).fill(1),
      ),
    };
    // Two inputs of more than half the values each: within the limit one by one.
    expect(jsonShapeError(JSON.stringify([call(half), call(half)]), BATCH)).toBeNull();
    const deep = { a: [{ b: Array(INPUT_LIMITS.items + 1).fill(1) }] };
    expect(jsonShapeError(JSON.stringify([call({}), call(deep)]), BATCH)).toEqual(inputShapeError(deep, 'arguments'));
    expect(jsonShapeError(JSON.stringify([call({}), call(deep)]), BATCH)).toEqual({
      field: 'a.0.b',
      message: WIDTH.items,
    });
  });

  test('a field name with an escape JSON has not is named as written', () => {
    expect(jsonShapeError(`{"k\\q":[${'0,'.repeat(INPUT_LIMITS.items)}0]}`, WHOLE)).toEqual({
      field: 'k\\q',
      message: WIDTH.items,
    });
  });

  test('an input that is not there, or not JSON, is no finding', () => {
    for (const text of [
      '',
      ',',
      ',,{',
      '{',
      '[[[',
      '{"variables":',
      '{"variables":{"a":"unterminated',
      '}}]]',
      '{"a" "b"}',
      'nul',
      '"\\"',
    ]) {
      expect(jsonShapeError(text, VARIABLES)).toBeNull();
    }
  });
});
