/** A mistake in how a command was called (its options, the names it was given): one line on stderr, no stack. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
