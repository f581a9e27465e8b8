import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServerAdapter } from '@whatwg-node/server';
import type { Config } from '../config.js';
import type { ConnectionLimits } from '../config.js';
import { AppError } from '../schema/core/errors.js';
import { errorHeaders, problemBody } from './problem.js';
import { addressKey } from './address-key.js';
import type { RequestInfo } from './request-info.js';

/**
 * The app on `node:http`, with what a socket needs on top of the fetch handler: timeouts that
 * a real client never meets and a slow one cannot stretch (slowloris), caps on open
 * connections, Node's own refusals answered in the API's shape, and credential headers
 * presented as they were sent.
 */
export function createNodeServer(app: {
  fetch(request: Request, info: RequestInfo): Promise<Response>;
  config: Pick<Config, 'connections'>;
}): Server {
  const limits = app.config.connections;
  const handle = createServerAdapter<{ req: IncomingMessage }>(async (request, { req }) => {
    const response = await app.fetch(request, { remoteAddress: req.socket.remoteAddress });
    // A request answered before its body was all read (a 413, or a 401 that never needed the
    // body): Node would read the rest, however long, before the connection could serve again.
    if (!req.complete) {
      response.headers.set('connection', 'close');
      lingerOnClose(req.socket);
    }
    return response;
  });
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks both timeouts on this interval (30 s by default), which would let a slow
      // client outlive them by up to that much.
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    (req, res) => {
      presentRepeatedAuthorization(req);
      void handle(req, res);
    },
  );
  server.on('clientError', answerClientError);
  capConnections(server, limits);
  return server;
}

/** How long a connection closed under an unfinished upload keeps reading (and dropping) it. */
const LINGER_MS = 2_000;

/**
 * A lingering close, as nginx's `lingering_close`: Node ends a `Connection: close` response by
 * destroying the socket, and a socket destroyed while the client's upload still arrives makes the
 * kernel answer with a reset, which can discard the response (the 413, the 401) before the client
 * has read it: the client sees a broken connection instead of the answer. So the socket is only
 * half-closed after the response (FIN), what still arrives is read and dropped, and it is
 * destroyed when the client closes its side or after LINGER_MS. No library does this for
 * node:http; the connection caps still count the socket while it lingers.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('end', () => this.destroy());
    this.once('close', () => clearTimeout(timer));
    this.resume();
  };
}

/**
 * Node keeps the first of two `Authorization` fields and drops the second (while it joins two
 * `X-Auth-Token` fields with ", "), so a request carrying two credentials would be served with
 * one of them. Joined the same way, as a fetch runtime presents them (RFC 9110 §5.3), they reach
 * authentication as what they are: more than one credential, refused as conflicting.
 */
function presentRepeatedAuthorization(req: IncomingMessage): void {
  const values = req.headersDistinct.authorization;
  if (values && values.length > 1) req.headers.authorization = values.join(', ');
}

/** A complete HTTP/1.1 answer written straight to a socket: a problem+json that closes the connection. */
function rawProblem(problem: AppError): string {
  const body = JSON.stringify(problemBody(problem));
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    Connection: 'close',
    ...errorHeaders(problem),
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n${lines.join('')}\r\n${body}`;
}

/** Node's own refusals (before any request object exists), by its error code. */
function clientErrorProblem(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('The request headers are too large.', 'HEADERS_TOO_LARGE');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('The request took too long to arrive; the connection is closed.', 'REQUEST_TIMEOUT');
    default:
      return new AppError('The request is not valid HTTP/1.1.', 'BAD_REQUEST');
  }
}

/**
 * Answers what Node's parser refuses (a bad request line, headers over the size limit, the
 * headers or request timeout) as problem+json instead of Node's bare status line, then closes.
 * No rate-limit headers: no bucket was drawn from for a request that never formed.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // Like Node's default: answer only while nothing of a response has been written on this
  // socket (`_httpMessage` is the response in flight), else the peer would read garbage.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  socket.write(rawProblem(clientErrorProblem(error.code)));
  socket.destroy();
}

/**
 * At most `maxConnections` open connections, and `maxConnectionsPerAddress` from one peer (a
 * few clients must not hold them all). A connection over a cap is answered 503 problem+json
 * and closed before Node reads anything from it.
 */
function capConnections(server: Server, limits: ConnectionLimits): void {
  let open = 0;
  const byAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = addressKey(socket.remoteAddress ?? '');
    const fromAddress = byAddress.get(address) ?? 0;
    const perAddress = limits.maxConnectionsPerAddress > 0 && fromAddress >= limits.maxConnectionsPerAddress;
    if (open >= limits.maxConnections || perAddress) {
      const detail = perAddress ? 'Too many open connections from your address.' : 'Too many open connections.';
      const problem = new AppError(`${detail} Close one, or retry shortly.`, 'TOO_MANY_CONNECTIONS');
      // Written and closed at once, so that Node never parses a request on this connection.
      socket.write(rawProblem(problem));
      socket.destroy();
      return;
    }
    open += 1;
    byAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      open -= 1;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left === 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
  });
}
