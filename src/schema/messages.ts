/**
 * A zod type error that tells "null" apart from a wrong type: in an update, null means
 * "clear", which only some fields allow.
 */
export function notNull(otherwise: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === null ? 'cannot be null' : otherwise) };
}
