import type { Db } from '../db/client.js';
import type { Prisma } from '../generated/prisma/client.js';
import { guardedDb } from './guarded-db.js';

/**
 * The hold a running request has on its Idempotency-Key's row, and how its writes say they
 * happened. Why: a request whose process dies (kill -9) leaves its row without an answer, and a
 * retry must know whether it wrote. So a write marks the row inside its own transaction
 * (`markCommitted`): the mark and the write commit together or not at all, and a row without an
 * answer and without the mark proves that nothing was written; a retry may then run the request
 * itself, once the dead owner's lease has run out (src/idempotency/run.ts).
 *
 * A write that cannot mark (any write through the context's client outside a marking
 * transaction: `guarded`) first sets the row `opaque` in a statement of its own, so its retries
 * keep the old answer (409 unknown) rather than risk running it twice.
 *
 * Every statement here names the row by `id`, which a takeover replaces (src/idempotency/store.ts
 * takeOverKey): an owner that was taken for dead but still runs touches no row, and its mark,
 * hence its write, fails.
 */
export class Claim {
  /** Whether a transaction of this request marked the row (its write committed). */
  committed = false;
  private opaque: Promise<void> | null = null;
  private guardedClient: Db | null = null;

  constructor(
    /** The database, unguarded: a marking transaction runs on it. */
    readonly db: Db,
    readonly id: string,
  ) {}

  /** The context's client while this claim runs: every write outside a marking transaction marks the row opaque first. */
  get guarded(): Db {
    this.guardedClient ??= guardedDb(this.db, () => this.markOpaque());
    return this.guardedClient;
  }

  /**
   * Marks the row as written, inside the write's transaction `tx`; throws ClaimLostError, which
   * rolls the write back, when the row is no longer this claim's (taken over). Called again by a
   * second transaction of the same request, it keeps the row marked.
   */
  async markCommitted(tx: Prisma.TransactionClient): Promise<void> {
    const { count } = await tx.idempotencyKey.updateMany({ where: { id: this.id }, data: { committedAt: new Date() } });
    if (count !== 1) throw new ClaimLostError();
    this.committed = true;
  }

  /** Sets the row opaque before a write that cannot mark it runs (once per claim); throws ClaimLostError if taken over. */
  markOpaque(): Promise<void> {
    this.opaque ??= this.db.idempotencyKey
      .updateMany({ where: { id: this.id }, data: { opaque: true } })
      .then(({ count }) => {
        if (count !== 1) throw new ClaimLostError();
      });
    return this.opaque;
  }
}

/**
 * The row of a claim was taken over by a retry that found its lease run out (this process was
 * stalled past it): this request must not write, the retry runs it.
 */
class ClaimLostError extends Error {
  constructor() {
    super('the Idempotency-Key was taken over by a retry after this request held it past its lease');
    this.name = 'ClaimLostError';
  }
}
