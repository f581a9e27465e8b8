import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { createNodeServer } from '../../src/http/node-server.js';
import type { App } from '../../src/app.js';

/** The app on a real socket, through the same Node server as `npm start`, on an ephemeral port. */
export async function listen(app: App): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createNodeServer(app);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    server,
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A raw TCP connection that records what the server sends and when it closes. */
export class RawConnection {
  readonly socket: Socket;
  received = '';
  /** Resolves when the server ends or resets the connection. */
  readonly closed: Promise<void>;
  error: NodeJS.ErrnoException | null = null;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    this.socket.on('error', (error) => (this.error = error));
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  async connected(): Promise<this> {
    if (this.socket.connecting) await once(this.socket, 'connect');
    return this;
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  /** Writes unless the connection is gone; resolves once the data is handed to the kernel (or the connection failed). */
  write(data: string | Buffer): Promise<boolean> {
    if (this.socket.destroyed || !this.socket.writable) return Promise.resolve(false);
    return new Promise((resolve) => this.socket.write(data, (error) => resolve(!error)));
  }

  /** Resolves once a complete response head has arrived, the connection closed, or `boundMs` passed. */
  async headReceived(boundMs = 10_000): Promise<void> {
    const deadline = Date.now() + boundMs;
    while (!this.received.includes('\r\n\r\n') && !this.isClosed && Date.now() < deadline) {
      await Promise.race([once(this.socket, 'data'), this.closed, delay(100)]);
    }
  }

  /** The status of the response received so far, if its status line has arrived. */
  get status(): number | null {
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(this.received);
    return match ? Number(match[1]) : null;
  }

  /** The head and the body of the first response received. */
  response(): { status: number; headers: Map<string, string>; body: string } {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(this.received.slice(0, 200))}`);
    const [statusLine, ...lines] = this.received.slice(0, end).split('\r\n');
    const headers = new Map(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    let body = this.received.slice(end + 4);
    if (headers.get('transfer-encoding') === 'chunked') body = unchunk(body);
    else if (headers.has('content-length')) body = body.slice(0, Number(headers.get('content-length')));
    return { status: Number(statusLine!.split(' ')[1]), headers, body };
  }

  destroy(): void {
    this.socket.destroy();
  }
}

function unchunk(data: string): string {
  let out = '';
  let rest = data;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd < 0) return out;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/**
 * Sends a request with a chunked body of up to `totalBytes` (no Content-Length), 64 KiB at a
 * time and only as fast as the server takes it, stopping as soon as a response arrives or the
 * connection fails. Resolves when the server has closed the connection, or `graceMs` after the
 * body was sent or a response arrived with the connection still open. Returns the connection
 * and how much of the body was sent.
 */
export async function chunkedUpload(
  port: number,
  path: string,
  headers: Record<string, string>,
  totalBytes: number,
  graceMs = 5_000,
): Promise<{ connection: RawConnection; sent: number }> {
  const connection = await new RawConnection(port).connected();
  const head = Object.entries({ host: `127.0.0.1:${port}`, 'transfer-encoding': 'chunked', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  await connection.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  let sent = 0;
  while (sent < totalBytes && connection.status === null && !connection.isClosed) {
    if (!(await connection.write(frame))) break;
    sent += chunk.length;
  }
  if (sent >= totalBytes) await connection.write('0\r\n\r\n');
  await Promise.race([connection.closed, delay(graceMs)]);
  return { connection, sent };
}
