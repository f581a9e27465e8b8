/**
 * How many units of work of one subject (a credential, or an address) run at once in this
 * process. A rate limit counts requests over a minute; it cannot see twenty requests sent
 * together, each of which holds the event loop for tens of milliseconds while its answer is
 * built. This counts what is running now, per process, since what it protects is this
 * process's event loop (several instances each bound their own).
 */
export class InFlight {
  private readonly running = new Map<string, number>();

  constructor(readonly perSubject: number) {}

  /** Takes one of `subject`'s slots; gives the function that frees it, or null when every slot is taken. */
  acquire(subject: string): (() => void) | null {
    const count = this.running.get(subject) ?? 0;
    if (count >= this.perSubject) return null;
    this.running.set(subject, count + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const left = (this.running.get(subject) ?? 1) - 1;
      if (left > 0) this.running.set(subject, left);
      else this.running.delete(subject);
    };
  }
}
