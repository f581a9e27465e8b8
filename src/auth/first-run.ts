import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashToken } from './pat-token.js';

/**
 * The one-time setup link of an empty database (`/setup?token=...`): the way the first owner
 * gets in without stopping the service to run the seed or the admin CLI. The token is random,
 * lives only in this process (it is printed once at start), is compared in constant time by its
 * hash, and is spent by its first successful use. Once any user exists the link is gone, even
 * if it was never used (the setup page checks that too, in the transaction that writes).
 */
export class FirstRunLink {
  private hash: Uint8Array | null;

  private constructor(hash: Uint8Array) {
    this.hash = hash;
  }

  /** A new link for an empty database: the token is returned once, to be printed. */
  static create(): { link: FirstRunLink; token: string } {
    const token = randomBytes(32).toString('base64url');
    return { link: new FirstRunLink(hashToken(token)), token };
  }

  /** Whether `token` is the unspent setup token. */
  matches(token: string): boolean {
    if (!this.hash || !token) return false;
    return timingSafeEqual(hashToken(token), this.hash);
  }

  /**
   * Spends the token before the first owner is written, so two submissions at once cannot both
   * set up; `undo` gives it back when the write fails (a mistake in the form, a taken slug).
   */
  claim(token: string): { undo(): void } | null {
    if (!this.matches(token)) return null;
    const hash = this.hash;
    this.hash = null;
    return {
      undo: () => {
        this.hash = hash;
      },
    };
  }

  /** The link stops working (a user was created some other way). */
  close(): void {
    this.hash = null;
  }
}
