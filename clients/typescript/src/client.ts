import { createClient, createConfig } from './generated/client/index.js';
import { Operations } from './generated/sdk.gen.js';
import { followPages, type ListItem, type ListOperation, type ListOptions } from './paging.js';
import { ApiProblem } from './problem.js';
import { retryingFetch, type TokenSource, type WaitEvent } from './retry.js';

export interface WorkmgmtClientOptions {
  /** The service's address, such as `https://workmgmt.example` (the API is under `/api`). */
  baseUrl: string;
  /** A personal access token (`tok_live_...`), or an OAuth session (see `authorizeWithLoopback`). */
  token: string | TokenSource;
  /** `X-Org-Id` on every request: optional with a token (bound to one organization), needed by nothing else here. */
  orgId?: string;
  /** The fetch that sends (default: the global one). */
  fetch?: typeof fetch;
  /** How to wait (default: a timer); tests pass one that advances a fake clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Called before every wait the rate-limit behaviour makes, with its reason and length. */
  onWait?: (event: WaitEvent) => void;
}

const staticToken = (token: string): TokenSource => ({ token: () => token });

/**
 * A client of the workmgmt API: every operation of its OpenAPI document as a typed method
 * (`listIssues`, `createIssue`, ...; each resolves to `{ data, response }` or throws an
 * `ApiProblem`), sent with the spec's rate-limit and retry behaviour (see `retryingFetch`), with
 * its own rate-limit budget per instance.
 *
 * @example
 * const wm = new WorkmgmtClient({ baseUrl: 'https://workmgmt.example', token: process.env.WM_TOKEN! });
 * const { data: issue } = await wm.createIssue({ body: { project_id: 'WEB', title: 'Fix login' } });
 */
export class WorkmgmtClient extends Operations {
  readonly #fetch: ReturnType<typeof retryingFetch>;

  constructor(options: WorkmgmtClientOptions) {
    const behaving = retryingFetch({
      credentials: typeof options.token === 'string' ? staticToken(options.token) : options.token,
      fetch: options.fetch,
      sleep: options.sleep,
      onWait: options.onWait,
    });
    const client = createClient(
      createConfig({
        baseUrl: `${options.baseUrl.replace(/\/+$/, '')}/api`,
        fetch: behaving,
        throwOnError: true,
        ...(options.orgId ? { headers: { 'X-Org-Id': options.orgId } } : {}),
      }),
    );
    // A failure with an answer is an ApiProblem; one without (the connection, an abort) stays as fetch threw it.
    client.interceptors.error.use((error, response) =>
      response ? new ApiProblem(response.status, error, response.headers) : error,
    );
    super({ client });
    this.#fetch = behaving;
  }

  /** Milliseconds this client has waited for rate limits and retries, all told. */
  get waitedMs(): number {
    return this.#fetch.waitedMs;
  }

  /**
   * Every page of a list, in order, following `Link: rel="next"` until the last page.
   *
   * @example
   * for await (const page of wm.pages('listIssues', { query: { project_id: 'WEB', limit: 100 } })) console.log(page.length);
   */
  pages<K extends ListOperation>(operation: K, options?: ListOptions<K>): AsyncGenerator<ListItem<K>[]> {
    const method = this[operation] as unknown as (o: unknown) => Promise<{ data: ListItem<K>[]; response: Response }>;
    return followPages((o) => method.call(this, o), options);
  }

  /**
   * Every element of a list, page after page (see `pages`).
   *
   * @example
   * for await (const issue of wm.each('listIssues', { query: { project_id: 'WEB' } })) console.log(issue.key);
   */
  async *each<K extends ListOperation>(operation: K, options?: ListOptions<K>): AsyncGenerator<ListItem<K>> {
    for await (const page of this.pages(operation, options)) yield* page;
  }
}
