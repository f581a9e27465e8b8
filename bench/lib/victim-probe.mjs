// The noisy-neighbour bench's victim (bench/tenants.ts), in a worker thread of its own: its
// requests are timed on an event loop that the attacker's requests (bodies of hundreds of KB
// to write, answers of MBs to read) never hold, so the latencies are the service's alone.
// Plain JavaScript, so its worker thread needs no loader.
import { parentPort, workerData } from 'node:worker_threads';

/**
 * @typedef {{ base: string; tokens: string[]; projectIds: string[]; rps: number; seconds: number; timeoutMs: number }} ProbeInput
 * @typedef {{ p50_ms: number; p99_ms: number; max_ms: number; sent: number; failed: number }} Probe
 */

/** The p-th percentile of sorted values, as bench/lib/load.ts computes it. */
const percentile = (sorted, p) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Open-loop reads for `seconds`: one request every 1/rps s (whatever the answers do), each with the next token. */
/** @param {ProbeInput} input @returns {Promise<Probe>} */
async function probe({ base, tokens, projectIds, rps, seconds, timeoutMs }) {
  const latencies = [];
  let failed = 0;
  const pending = [];
  const interval = 1000 / rps;
  const start = performance.now();
  for (let i = 0; performance.now() - start < seconds * 1000; i++) {
    const wait = start + i * interval - performance.now();
    if (wait > 0) await sleep(wait);
    const token = tokens[i % tokens.length];
    const project = projectIds[i % projectIds.length];
    pending.push(
      (async () => {
        const sent = performance.now();
        try {
          const response = await fetch(`${base}/api/issues?project_id=${project}&limit=20`, {
            headers: { authorization: `Bearer ${token}` },
            signal: AbortSignal.timeout(timeoutMs),
          });
          await response.arrayBuffer();
          if (response.status === 200) latencies.push(performance.now() - sent);
          else failed++;
        } catch {
          failed++;
        }
      })(),
    );
  }
  await Promise.all(pending);
  const sorted = Float64Array.from(latencies).sort();
  return {
    p50_ms: +percentile(sorted, 50).toFixed(1),
    p99_ms: +percentile(sorted, 99).toFixed(1),
    max_ms: +(sorted[sorted.length - 1] ?? NaN).toFixed(1),
    sent: pending.length,
    failed,
  };
}

if (parentPort) parentPort.postMessage(await probe(workerData));
