// The part of autocannon's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface RequestData {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }
  interface RequestSpec extends RequestData {
    setupRequest?: (request: RequestData, context: Record<string, unknown>) => RequestData | null;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    timeout?: number;
    requests?: RequestSpec[];
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    [key: string]: number;
  }
  interface Result {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  interface Instance extends EventEmitter {
    stop(): void;
  }
  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
