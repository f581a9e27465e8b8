import type { AuthDeps, Credentials } from '../auth/authenticate.js';
import type { Context } from '../context.js';
import type { PolicyDecision } from '../limits/headers.js';
import type { RequestScope } from '../ops/request-scope.js';

/**
 * One request on its way through the pipeline (src/app.ts): what the steps read and what they
 * leave for the ones after them.
 */
export interface Exchange {
  request: Request;
  url: URL;
  /** What the ops layer learns about this request (src/ops/request-scope.ts). */
  scope: RequestScope;
  /** The client's address (src/http/client-ip.ts). */
  ip: string;
  /** What the request presents, read once from its headers. */
  credentials: Credentials;
  /** What authentication needs, with this request's memoised token verification and epoch read. */
  auth: Required<AuthDeps>;
  /** The context every operation of this request sees; `principal` is set by dispatch. */
  ctx: Context;
  /** The global bucket's decisions (the rate-limit step), for the response's headers. */
  decisions: PolicyDecision[];
}
