/**
 * The `Idempotency-Key` request header (IETF httpapi draft "The Idempotency-Key HTTP Header
 * Field"): a Structured Field string (`"8e03978e-..."`). A bare token (`8e03978e-...`) is
 * accepted too, as many clients send it that way; either way it is 1 to 255 visible ASCII
 * characters. Two keys in one request (the header repeated, or a list) name no single request.
 */
const IDEMPOTENCY_HEADER = 'idempotency-key';

export const KEY_MAX_LENGTH = 255;

/**
 * What a key may hold however it comes (the header, or an MCP tool's idempotency_key argument):
 * 1 to 255 printable ASCII characters, what a Structured Field string can carry. (A NUL or other
 * control character could not even be stored.)
 */
export const KEY_TEXT = new RegExp(`^[\\x20-\\x7E]{1,${KEY_MAX_LENGTH}}$`);
export const KEY_RULE = `must be 1 to ${KEY_MAX_LENGTH} printable ASCII characters`;

/** How long the first answer is kept and replayed (the draft leaves it to the server). */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;

export type ParsedKey = { key: string } | { error: string } | null;

/** sf-string (RFC 9651 §3.3.3): printable ASCII in quotes; `\"` and `\\` are the only escapes. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\["\\])*)"$/;
/** A bare key: visible ASCII without quotes, commas or spaces (so a list cannot pass as one key). */
const BARE = /^[\x21\x23-\x2B\x2D-\x7E]+$/;

/** The key a request sends: null without the header, `{error}` when it is malformed. */
export function parseIdempotencyKey(headers: Headers): ParsedKey {
  const raw = headers.get(IDEMPOTENCY_HEADER);
  if (raw === null) return null;
  // Stryker disable next-line MethodExpression: Headers already strip a value's surrounding whitespace
  const value = raw.trim();
  const quoted = SF_STRING.exec(value);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : BARE.test(value) ? value : null;
  if (key === null) {
    return {
      error:
        'Idempotency-Key must be one quoted string ("a1b2...") or one token of visible ASCII characters, sent once.',
    };
  }
  if (key.length === 0 || key.length > KEY_MAX_LENGTH)
    return { error: `Idempotency-Key must be 1 to ${KEY_MAX_LENGTH} characters.` };
  return { key };
}

/**
 * How long a running request holds its key without renewing it (it renews every third of it): a
 * retry finding the key past its lease takes the owner's process for gone (src/idempotency/run.ts).
 * Long enough for a renewal to wait out a busy pool; short enough that a retry after a crash
 * runs within a client's usual retries.
 */
export const LEASE_MS = 10_000;
