/**
 * Where the command-line clients (`npm run export`) find the service: the `--base-url` option,
 * else `WM_BASE_URL`, else the service's own `BASE_URL`, else the service's default address
 * (`http://localhost:$PORT`, port 4000), so a shell that started the service finds it again.
 */
export function clientBaseUrl(option: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = option ?? env.WM_BASE_URL ?? env.BASE_URL ?? `http://localhost:${env.PORT || '4000'}`;
  return url.replace(/\/+$/, '');
}

/** The service cannot be reached at `baseUrl`: the command prints the message alone. */
const unreachable = (baseUrl: string, cause: string) => new Error(`cannot reach ${baseUrl}: ${cause}`);

const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/** What a failed fetch says about why, in words: undici's own message is only "fetch failed". */
function fetchFailureCause(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer within 10 s';
  let cause: unknown = error instanceof Error ? error.cause : undefined;
  // A connection to `localhost` tries each address; the last one's error is the one to show.
  if (cause instanceof AggregateError && cause.errors.length) cause = cause.errors.at(-1);
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string')
    return CAUSES[code] ?? `${code}${cause instanceof Error && cause.message ? ` (${cause.message})` : ''}`;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * One request to the service's liveness probe before any work, so a wrong address or a stopped
 * service is one line naming both at once, not a minute of silent retries (the API client
 * retries lost connections, which is right mid-export and wrong before it has begun).
 */
export async function checkReachable(baseUrl: string, fetchImpl: typeof fetch = fetch): Promise<void> {
  let url: URL;
  try {
    url = new URL(`${baseUrl}/healthz`);
  } catch {
    throw unreachable(baseUrl, 'not a URL (for example http://localhost:4000)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw unreachable(baseUrl, 'not an http or https URL');
  try {
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(10_000) });
    await response.body?.cancel();
  } catch (error) {
    throw unreachable(baseUrl, fetchFailureCause(error));
  }
}
