import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  payload: {
    id: string;
    type: string;
    data: Record<string, unknown>;
    changes?: { field: string; old: unknown; new: unknown }[];
  } & Record<string, unknown>;
  /** Secrets (of those given) whose signature verified, with the standardwebhooks library. */
  verifiedWith: string[];
  at: number;
}

/** What the receiver answers: a status (and headers), 'hang' (never answer), or 'hold' (200 once released). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'hold';

/**
 * A real webhook receiver on 127.0.0.1: it records each request and checks its signature against
 * every secret it was told about, with the `standardwebhooks` package as a customer would.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  secrets: string[] = [];
  /** Answers to give, in turn; when empty, `otherwise`. */
  answers: Answer[] = [];
  otherwise: Answer = { status: 200 };
  /** Requests whose connection is still open (unanswered, or answered and not yet closed), and the most at once. */
  open = 0;
  maxOpen = 0;
  /** When each request's connection closed (Date.now()). */
  readonly closedAt: number[] = [];
  private held: ServerResponse[] = [];
  private server!: Server;
  private waiters: { count: number; resolve: () => void }[] = [];

  async start(port = 0): Promise<string> {
    this.server = createServer((request, response) => {
      this.open++;
      this.maxOpen = Math.max(this.maxOpen, this.open);
      response.on('close', () => {
        this.open--;
        this.closedAt.push(Date.now());
      });
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const verifiedWith = this.secrets.filter((secret) => {
          try {
            new Webhook(secret).verify(body, request.headers as Record<string, string>);
            return true;
          } catch {
            return false;
          }
        });
        this.received.push({
          id: String(request.headers['webhook-id']),
          headers: request.headers,
          body,
          payload: JSON.parse(body),
          verifiedWith,
          at: Date.now(),
        });
        for (const waiter of [...this.waiters]) {
          if (this.received.length >= waiter.count) {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
        const answer = this.answers.shift() ?? this.otherwise;
        if (answer === 'hang') return;
        if (answer === 'hold') return void this.held.push(response);
        response.writeHead(answer.status, answer.headers);
        response.end(answer.body ?? 'ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Resolves once `count` requests have arrived in all. */
  waitFor(count: number, timeoutMs = 20_000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${this.received.length} of ${count} webhook requests arrived`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Answers 200 to every request held so far. */
  release(): void {
    for (const response of this.held.splice(0)) response.end('ok');
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
