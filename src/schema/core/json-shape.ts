import type { FieldError } from './errors.js';
import { INPUT_LIMITS, WIDTH } from './input-shape.js';

/**
 * INPUT_LIMITS checked on a JSON text before it is parsed. `JSON.parse` builds every object,
 * list and string of a body before inputShapeError can look at it: a 600 KB body of 60,000
 * fields, or 200,000 list items, costs the event loop tens of milliseconds and the heap a
 * hundred megabytes each time, at the rate limit. This scan reads the text once, builds
 * nothing, and stops at the first excess: a hostile body costs at most a pass over its bytes,
 * and a wide one only the bytes up to its 101st field.
 *
 * Written by hand: the streaming JSON parsers on the registry tokenize into objects (slower
 * than JSON.parse itself), and none bounds width, length and depth before building values.
 * It does not validate JSON: a malformed text either passes (JSON.parse then says what is
 * wrong) or is refused for a limit it would pass anyway. Its findings are worded as
 * inputShapeError's; when a value passes several limits, the first one in the text is named.
 */

/** A step of a path: a field name, or `*` for any item of a list. */
type Step = string;

/** Where in a body the checked input sits, and what the input is called in errors. */
export interface InputAt {
  /** The input's name (`variables`, `arguments`, `body`), as inputShapeError's `root`. */
  root: string;
  /** Field names (or `*` for any list item) from the body down to the input; empty for the whole body. */
  path: readonly Step[];
}

interface Frame {
  list: boolean;
  /** Fields or items so far. */
  count: number;
  /** The current field's name (decoded), or the current item's index. */
  key: string;
  /** Whether the current field's name is yet to come (objects only; lists leave it as it was made). */
  wantsKey: boolean;
  /** Levels below the input's root (the root is 0), or -1 outside the input. */
  depth: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The end of the string starting at `open` (the index of its closing quote, or text.length when unterminated). */
function stringEnd(text: string, open: number): number {
  // indexOf runs natively, many times faster than a loop over the characters of a long string.
  for (let from = open + 1; ; ) {
    const quote = text.indexOf('"', from);
    // Stryker disable next-line EqualityOperator: from is past the opening quote, so never 0
    if (quote < 0) return text.length;
    let slash = quote - 1;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the opening quote is no backslash, so the walk stops there anyway
    while (slash > open && text.charCodeAt(slash) === BACKSLASH) slash--;
    // An even number of backslashes before it: they escape each other, not the quote.
    // Stryker disable next-line ArithmeticOperator: adding or subtracting 2 x slash, or 2, keeps the parity
    if ((quote - 1 - slash) % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** The characters of the string between `open` and `close` once escapes are decoded. */
function decoded(text: string, open: number, close: number): string {
  const raw = text.slice(open + 1, close);
  // Stryker disable next-line ConditionalExpression,StringLiteral: JSON.parse of a string without escapes gives it back as it is
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(open, close + 1)) as string;
  } catch {
    return raw;
  }
}

/**
 * The first way the input at `at` within the JSON `text` passes INPUT_LIMITS, as inputShapeError
 * words it, or null (also for text that is not JSON). Every input the path matches is checked
 * on its own, each of an MCP batch's tool calls for instance.
 */
export function jsonShapeError(text: string, at: InputAt): FieldError | null {
  const frames: Frame[] = [];
  let values = 0;

  /** The level, below the input's root, of the value about to start; -1 outside the input. */
  const depthOfNext = (): number => {
    const parent = frames[frames.length - 1];
    if (!parent) return at.path.length === 0 ? 0 : -1;
    if (parent.depth >= 0) return parent.depth + 1;
    // Outside the input: inside it once every step of its path is matched.
    const level = frames.length;
    if (level !== at.path.length) return -1;
    for (let i = 0; i < level; i++) {
      const step = at.path[i]!;
      const frame = frames[i]!;
      if (step === '*' ? !frame.list : frame.list || frame.key !== step) return -1;
    }
    return 0;
  };
  /** The path, within the input, of the value at `depth` whose field or index is the innermost container's current key. */
  const valuePath = (depth: number): string =>
    depth === 0
      ? at.root
      : frames
          .slice(frames.length - depth)
          .map((f) => f.key)
          .join('.');
  /** The path, within the input, of the innermost container (at `depth`). */
  const containerPath = (depth: number): string =>
    depth === 0
      ? at.root
      : frames
          .slice(frames.length - 1 - depth, frames.length - 1)
          .map((f) => f.key)
          .join('.');

  // Stryker disable next-line EqualityOperator: one step past the end reads NaN, which starts nothing
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || c === 0x3a) continue; // whitespace, and the colon after a field name
    const top = frames[frames.length - 1];
    if (c === 0x2c) {
      // A comma: in an object, the next field's name comes (a list counts its items as they start).
      if (top && !top.list) top.wantsKey = true;
      continue;
    }
    if (c === 0x7d || c === 0x5d) {
      frames.pop();
      continue;
    }
    if (top && !top.list && top.wantsKey) {
      // A field name. In JSON only a quote can start one here; anything else is skipped (the text
      // is not JSON, and JSON.parse says so).
      // Stryker disable next-line ConditionalExpression: only text that is not JSON gets here, and it is refused either way
      if (c !== QUOTE) continue;
      const close = stringEnd(text, i);
      top.count++;
      top.wantsKey = false;
      top.key = decoded(text, i, close);
      if (top.depth >= 0) {
        if (top.count > INPUT_LIMITS.fields) {
          return { field: containerPath(top.depth), message: WIDTH.fields };
        }
        if (top.key.length > INPUT_LIMITS.name) {
          return {
            field: containerPath(top.depth),
            message: `has a field name of ${top.key.length} characters, over the limit of ${INPUT_LIMITS.name}`,
          };
        }
      }
      i = close;
      continue;
    }
    // A value starts: a string, an object, a list, or a number, true, false or null.
    if (top?.list) {
      top.key = String(top.count);
      top.count++;
      if (top.depth >= 0 && top.count > INPUT_LIMITS.items) {
        return { field: containerPath(top.depth), message: WIDTH.items };
      }
    }
    const depth = depthOfNext();
    if (depth === 0) values = 0; // each input is counted on its own
    if (depth >= 0 && ++values > INPUT_LIMITS.values) {
      return {
        field: at.root,
        message: `holds more than ${INPUT_LIMITS.values} values in all (objects, lists and what they hold)`,
      };
    }
    if (c === QUOTE) {
      const close = stringEnd(text, i);
      // The raw length bounds the decoded one from above: decode only a string that may be over.
      // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: decoding more strings than needed is slower, not wrong
      if (depth >= 0 && close - i - 1 > INPUT_LIMITS.text) {
        const length = decoded(text, i, close).length;
        if (length > INPUT_LIMITS.text)
          return {
            field: valuePath(depth),
            message: `is ${length} characters long, over the limit of ${INPUT_LIMITS.text}`,
          };
      }
      i = close;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      if (depth > INPUT_LIMITS.depth)
        return {
          field: valuePath(depth),
          message: `nests deeper than ${INPUT_LIMITS.depth} levels of objects and lists`,
        };
      // Stryker disable next-line StringLiteral: a container's key is set before any path reads it
      frames.push({ list: c === 0x5b, count: 0, key: '', wantsKey: true, depth });
      continue;
    }
    // A number or a literal: up to the next delimiter.
    // Stryker disable next-line EqualityOperator,ArithmeticOperator: past the end reads NaN, which ends the loop all the same
    while (i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // Stryker disable next-line ConditionalExpression: in JSON, whitespace after a literal is followed by one of the others
      if (next <= 0x20 || next === 0x2c || next === 0x5d || next === 0x7d) break;
      i++;
    }
  }
  return null;
}
