import type { Server, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { Health } from './health.js';

export interface ShutdownOptions {
  servers: Server[];
  health: Health;
  logger: Logger;
  /** Seconds to keep serving, readiness at 503, before the listeners close (SHUTDOWN_DELAY_SECONDS). */
  delaySeconds: number;
  /** Seconds requests in flight then get to finish before their connections are cut (SHUTDOWN_TIMEOUT_SECONDS). */
  timeoutSeconds: number;
  /** Releases what the app holds (database, Redis), after the last request. */
  close(): Promise<void>;
  exit?: (code: number) => never;
}

/**
 * Graceful shutdown on SIGTERM and SIGINT, with Node's own server API (since Node 19 `close()`
 * also closes idle keep-alive connections, which is what libraries such as http-terminator
 * were for):
 * 1. readiness answers 503 at once, and every response from now on carries `Connection: close`
 *    (RFC 9112, 9.6), so clients and proxies stop reusing connections to this process;
 * 2. for SHUTDOWN_DELAY_SECONDS the service still answers, so a load balancer has time to see
 *    the 503 and stop sending (a second signal skips the rest of this wait);
 * 3. the listeners close: new connections are refused; idle ones are closed; requests in
 *    flight finish, each connection closing after its response;
 * 4. once none is left, the app closes and the process exits 0; if some are still running after
 *    SHUTDOWN_TIMEOUT_SECONDS, their connections are cut and it exits 1.
 */
export function handleShutdownSignals(options: ShutdownOptions): void {
  const { servers, health, logger } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const active = new Set<ServerResponse>();
  let phase: 'running' | 'draining' | 'closing' = 'running';
  let endDelay = () => {};

  for (const server of servers) {
    server.on('request', (_request, response: ServerResponse) => {
      if (phase !== 'running') response.shouldKeepAlive = false;
      active.add(response);
      response.once('close', () => {
        active.delete(response);
        // A response whose headers went out before the shutdown began leaves its connection idle.
        if (phase === 'closing') server.closeIdleConnections();
      });
    });
  }

  async function shutdown(signal: string) {
    if (phase === 'draining') {
      logger.info({ signal }, 'second signal: closing the listeners now');
      endDelay();
      return;
    }
    if (phase !== 'running') return;
    phase = 'draining';
    health.startShutdown();
    for (const response of active) if (!response.headersSent) response.shouldKeepAlive = false;
    logger.info(
      { signal, delay_s: options.delaySeconds, timeout_s: options.timeoutSeconds, in_flight: active.size },
      'shutting down: readiness is 503',
    );
    if (options.delaySeconds > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.delaySeconds * 1000);
        endDelay = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    phase = 'closing';
    const closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    for (const server of servers) server.closeIdleConnections();
    logger.info({ in_flight: active.size }, 'listeners closed: finishing requests in flight');
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      closed.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), options.timeoutSeconds * 1000);
      }),
    ]);
    clearTimeout(timer);
    if (!finished) {
      logger.error(
        { in_flight: active.size },
        'requests still in flight after SHUTDOWN_TIMEOUT_SECONDS: cutting their connections',
      );
      for (const server of servers) server.closeAllConnections();
    }
    try {
      await options.close();
    } catch (error) {
      logger.error({ err: error }, 'error while closing');
      exit(1);
    }
    logger.info('stopped');
    exit(finished ? 0 : 1);
  }

  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
