import type { Principal } from '../auth/principal.js';
import type { Logger } from '../logger.js';

export interface AccessEntry {
  /** X-Request-Id (src/ops/request-scope.ts). */
  requestId: string;
  /** The trace's id when tracing is on (src/ops/tracing.ts). */
  traceId?: string | undefined;
  method: string;
  /** The route template, never the raw path (which can carry ids, keys and query strings with secrets). */
  route: string;
  status: number;
  durationMs: number;
  principal: Principal | undefined;
  clientIp: string;
}

/**
 * One line per request, written when the response is ready. It names who asked (principal
 * kind, user and organization ids) but never what they presented: no token, cookie, header or
 * query string is logged.
 */
export function logAccess(logger: Logger, entry: AccessEntry): void {
  // LOG_LEVEL=warn and above: no line, so nothing to build either.
  if (!logger.isLevelEnabled('info')) return;
  const principal = entry.principal?.kind === 'user' ? entry.principal : null;
  logger.info(
    {
      request_id: entry.requestId,
      trace_id: entry.traceId,
      method: entry.method,
      route: entry.route,
      status: entry.status,
      duration_ms: Math.round(entry.durationMs * 10) / 10,
      principal: principal ? principal.credential.kind : 'anonymous',
      user_id: principal?.userId,
      org_id: principal?.org?.id,
      client_ip: entry.clientIp,
    },
    'request',
  );
}
