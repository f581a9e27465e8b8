import http from 'node:http';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A request on a connection of its own (no pool), so "is a new connection accepted?" is what it
 * asks. With `agent`, on that agent's connections instead (a keep-alive agent asks the server to
 * keep the connection: Node's client sends `Connection: close` without one).
 */
export function request(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: init.method ?? 'GET', headers: init.headers, agent: init.agent ?? false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Polls `check` until it holds; the test's timeout bounds the wait. */
export async function until(check: () => Promise<boolean>, intervalMs = 100): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, intervalMs));
}
