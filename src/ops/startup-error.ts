/**
 * A start-up mistake an operator can fix: its message is one line that names the setting and
 * the fix. The entry points print it alone (no stack) and exit 1, before anything was changed.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** The errno-style code of a socket or DNS error (Node wraps multi-address failures in an AggregateError). */
export function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: { code?: unknown }[] };
  if (typeof e?.code === 'string') return e.code;
  const inner = e?.errors?.[0]?.code;
  return typeof inner === 'string' ? inner : undefined;
}
