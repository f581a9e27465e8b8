/**
 * A zod type error that tells "null" apart from a wrong type: in an update, null means
 * "clear", which only some fields allow.
 */
export function notNull(otherwise: string) {
  // undefined: the field is missing, which the shared message says (src/schema/core/validate.ts).
  return {
    error: (issue: { input?: unknown }) =>
      issue.input === undefined ? undefined : issue.input === null ? 'cannot be null' : otherwise,
  };
}
