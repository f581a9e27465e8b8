import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { Db } from '../db/client.js';
import { answerBytes, MAX_ANSWER_BYTES, overQuota } from './quota.js';
import { Claim } from './claim.js';
import { LEASE_MS } from './key.js';
import {
  claimKey,
  completeKey,
  endLease,
  findKey,
  omitAnswer,
  releaseKey,
  renewLease,
  sweepExpiredKeys,
  takeOverKey,
} from './store.js';
import type { KeyScope, StoredResponse } from './store.js';

/**
 * The outcome of a request sent with an Idempotency-Key:
 * - `fresh`: this request claimed the key and ran; its answer is what it returned;
 * - `replay`: an earlier request with the same key and fingerprint already answered: its answer;
 * - `mismatch`: the key was used for another request (another path or body): 422;
 * - `in_progress`: the first request with the key is still running after we waited for it: 409;
 * - `applied`: the first request's write committed but its process died before it answered: 409
 *   saying so (its answer was not kept), never run a second time;
 * - `unknown`: the first request never finished and ran a write that could not mark the key
 *   (src/idempotency/claim.ts), so whether it wrote cannot be known: 409, and the key stays taken
 *   until it expires, never run a second time;
 * - `answer_too_large`: the first request ran (answering `status`), but its answer was larger
 *   than an answer may be kept (MAX_ANSWER_BYTES), so there is nothing to replay: 409;
 * - `quota_exceeded`: the user's kept keys or bytes are at their quota (src/idempotency/quota.ts);
 *   nothing ran: 429, with the seconds until its oldest key expires.
 */
export type Outcome =
  | { kind: 'fresh'; response: StoredResponse }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' }
  | { kind: 'applied' }
  | { kind: 'unknown' }
  | { kind: 'answer_too_large'; status: number }
  | { kind: 'quota_exceeded'; retryAfterSeconds: number };

export interface IdempotencyOptions {
  /** How long a duplicate waits for the first request to finish before answering in_progress. */
  waitMs?: number;
  /** A running request older than this is taken as dead (longer than any request may run). */
  staleMs?: number;
  /** How long a running request holds its key without renewing it (LEASE_MS). */
  leaseMs?: number;
  /** Polling interval while waiting. */
  pollMs?: number;
  /** The largest answer kept for replay (MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
}

const DEFAULTS = {
  waitMs: 5_000,
  staleMs: 120_000,
  leaseMs: LEASE_MS,
  pollMs: 25,
  maxAnswerBytes: MAX_ANSWER_BYTES,
} as const;

/**
 * Whose keys a principal uses: the credential's user in the organization it acts in. Null for
 * a principal without a user (anonymous, the console operator), which gets no idempotency.
 */
export function keyScope(principal: Principal, key: string): KeyScope | null {
  if (principal.kind !== 'user') return null;
  return { userId: principal.userId, orgId: principal.org?.id ?? '', key };
}

/** SHA-256 of what makes two requests the same request: for HTTP, method, path and query, and body. */
export function fingerprint(...parts: (string | Uint8Array)[]): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    // Stryker disable next-line ConditionalExpression: a Uint8Array's length is its byteLength
    hash
      .update(String(typeof part === 'string' ? part.length : part.byteLength))
      .update(':')
      .update(part);
  }
  return hash.digest('hex');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `execute` at most once per key and fingerprint within the key's lifetime (24 h), whatever
 * the surface: the REST API and GraphQL through src/idempotency/http.ts, and any other caller
 * (an MCP tool call) with its own StoredResponse. `keep` says whether an answer is final
 * (replayed to retries) or worth retrying (the key is freed: a rate limit, a server error).
 * An exception from `execute` frees the key too and is rethrown. Neither frees a key whose
 * request wrote: its retries are told it was applied.
 *
 * The key's row is claimed before `execute` runs and completed after, so a concurrent duplicate
 * sees it and waits. `execute` gets the Claim, whose mark its writes commit with
 * (src/idempotency/claim.ts). While it runs its lease is renewed; a duplicate that finds the
 * lease run out (the process died) and the row proving nothing was written takes the row over
 * and runs the request itself: once, as the old owner's writes can no longer mark the row. A new
 * key counts against its user's quota before anything runs; an answer larger than
 * `maxAnswerBytes` is returned but not kept.
 */
export async function idempotent(
  db: Db,
  scope: KeyScope,
  print: string,
  execute: (claim: Claim) => Promise<StoredResponse>,
  keep: (response: StoredResponse) => boolean,
  options: IdempotencyOptions = {},
): Promise<Outcome> {
  const { waitMs, staleMs, leaseMs, pollMs, maxAnswerBytes } = { ...DEFAULTS, ...options };
  const deadline = Date.now() + waitMs;
  const run = async (id: string): Promise<Outcome> => {
    const claim = new Claim(db, id);
    const renewal = setInterval(() => void renewLease(db, id, leaseMs).catch(() => {}), leaseMs / 3);
    // A request that wrote is never freed for a retry to run again: its lease ends instead.
    const free = () => (claim.committed ? endLease(db, id) : releaseKey(db, id));
    let response: StoredResponse;
    try {
      response = await execute(claim);
    } catch (error) {
      await free();
      throw error;
    } finally {
      clearInterval(renewal);
    }
    const bytes = answerBytes(response);
    if (!keep(response)) await free();
    else if (bytes > maxAnswerBytes) await omitAnswer(db, id, response.status);
    else await completeKey(db, id, response, bytes);
    return { kind: 'fresh', response };
  };
  await sweepExpiredKeys(db);
  for (;;) {
    const claimed = await claimKey(db, scope, print, new Date(), leaseMs);
    if (claimed) {
      const wait = await overQuota(db, scope.userId);
      if (wait !== null) {
        await releaseKey(db, claimed.id);
        return { kind: 'quota_exceeded', retryAfterSeconds: wait };
      }
      return run(claimed.id);
    }
    const row = await findKey(db, scope);
    // Freed between our claim and this read (the first request failed): claim it again.
    if (!row) continue;
    if (row.fingerprint !== print) return { kind: 'mismatch' };
    if (row.response) return { kind: 'replay', response: row.response };
    if (row.omitted) return { kind: 'answer_too_large', status: row.omitted.status };
    // Its process is gone (its lease ran out). An opaque row waits for staleMs, as below.
    if (!row.opaque && row.leaseUntil.getTime() < Date.now()) {
      if (row.committed) return { kind: 'applied' };
      const taken = await takeOverKey(db, row, leaseMs);
      if (taken) return run(taken.id);
      // Another retry took it over, or the owner's write committed meanwhile: read it again.
      continue;
    }
    if (Date.now() - row.createdAt.getTime() > staleMs) return { kind: 'unknown' };
    if (Date.now() >= deadline) return { kind: 'in_progress' };
    await sleep(pollMs);
  }
}
