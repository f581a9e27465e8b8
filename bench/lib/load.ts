// One load run: autocannon (programmatic) at fixed concurrency against a server, with every
// response time kept (autocannon's own histogram rounds to whole milliseconds).
import autocannon from 'autocannon';
import type { Workload } from './workloads.js';

export interface LoadResult {
  requests: number;
  duration_s: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
}

let sequence = 0;

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function drive(
  port: number,
  workload: Workload,
  options: { connections: number; durationS: number },
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const first = workload.request(sequence);
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections: options.connections,
        duration: options.durationS,
        timeout: 30,
        requests: [
          {
            method: first.method,
            path: first.path,
            setupRequest: (request) => {
              const next = workload.request(sequence++);
              return { ...request, method: next.method, path: next.path, headers: next.headers, body: next.body ?? '' };
            },
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        const sorted = Float64Array.from(latencies).sort();
        const ok = latencies.length;
        const total = Object.values(statuses).reduce((a, b) => a + b, 0);
        resolve({
          requests: total,
          duration_s: result.duration,
          rps: +(total / result.duration).toFixed(1),
          p50_ms: +percentile(sorted, 50).toFixed(2),
          p99_ms: +percentile(sorted, 99).toFixed(2),
          mean_ms: ok ? +(latencies.reduce((a, b) => a + b, 0) / ok).toFixed(2) : NaN,
          non2xx: result.non2xx,
          errors: result.errors,
          statuses,
        });
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (statusCode < 300) latencies.push(responseTime);
    });
  });
}
