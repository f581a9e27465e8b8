import * as oauth from 'oauth4webapi';
import type { TokenSource } from './retry.js';

/** What a client keeps of an OAuth grant between runs. */
export interface OAuthTokens {
  access_token: string;
  refresh_token?: string;
  /** When the access token expires (milliseconds since the epoch); unknown: refreshed on a 401 only. */
  expires_at?: number;
  scope?: string;
}

export interface OAuthSessionOptions {
  /** The service's address (the OAuth issuer), such as `https://workmgmt.example`. */
  baseUrl: string;
  /** The public client's id (from registration). */
  clientId: string;
  tokens: OAuthTokens;
  /** Called with every new set of tokens (refresh tokens rotate on every use): store them. */
  onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
  fetch?: typeof fetch;
}

/** A refresh this long before expiry, so a token does not run out on its way to the service. */
const EARLY_MS = 60_000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** oauth4webapi's request options: http only for a service on this machine (a developer's). */
function requestOptions(baseUrl: URL, fetchImpl: typeof fetch | undefined) {
  return {
    ...(fetchImpl ? { [oauth.customFetch]: fetchImpl } : {}),
    ...(baseUrl.protocol === 'http:' && LOOPBACK.has(baseUrl.hostname) ? { [oauth.allowInsecureRequests]: true } : {}),
  };
}

async function discover(issuer: URL, options: ReturnType<typeof requestOptions>): Promise<oauth.AuthorizationServer> {
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }),
  );
}

const keep = (tokens: oauth.TokenEndpointResponse, previous?: OAuthTokens): OAuthTokens => ({
  access_token: tokens.access_token,
  refresh_token: tokens.refresh_token ?? previous?.refresh_token,
  expires_at: tokens.expires_in === undefined ? undefined : Date.now() + tokens.expires_in * 1000,
  scope: tokens.scope ?? previous?.scope,
});

/**
 * An OAuth access token that refreshes itself: before it expires, and once on a 401. Give it to
 * `WorkmgmtClient` as its `token`. Refreshes are made one at a time (the service rotates refresh
 * tokens and revokes the grant when one is used twice).
 */
export class OAuthSession implements TokenSource {
  #tokens: OAuthTokens;
  #refreshing: Promise<void> | null = null;
  #as: Promise<oauth.AuthorizationServer> | null = null;
  readonly #issuer: URL;
  readonly #options: OAuthSessionOptions;

  constructor(options: OAuthSessionOptions) {
    this.#options = options;
    this.#tokens = { ...options.tokens };
    this.#issuer = new URL(options.baseUrl);
  }

  /** The tokens now (after any refresh). */
  get tokens(): OAuthTokens {
    return { ...this.#tokens };
  }

  async token(): Promise<string> {
    const { expires_at, refresh_token } = this.#tokens;
    if (refresh_token && expires_at !== undefined && Date.now() > expires_at - EARLY_MS) await this.refresh();
    return this.#tokens.access_token;
  }

  /** Gets a new access token with the refresh token (at most one refresh runs at a time). */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #refresh(): Promise<void> {
    const refreshToken = this.#tokens.refresh_token;
    if (!refreshToken) throw new Error('This OAuth session has no refresh token: sign in again.');
    const options = requestOptions(this.#issuer, this.#options.fetch);
    this.#as ??= discover(this.#issuer, options);
    const as = await this.#as;
    const client = { client_id: this.#options.clientId };
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, {
      ...options,
      additionalParameters: { resource: `${this.#options.baseUrl.replace(/\/+$/, '')}/api` },
    });
    this.#tokens = keep(await oauth.processRefreshTokenResponse(as, client, response), this.#tokens);
    await this.#options.onTokens?.(this.tokens);
  }
}

export interface LoopbackSignInOptions {
  /** The service's address (the OAuth issuer), such as `https://workmgmt.example`. */
  baseUrl: string;
  /** Show the person the sign-in page: open a browser on `url`, or print it. */
  openUrl: (url: string) => void | Promise<void>;
  /** Scopes to ask for (default `read write`). */
  scope?: string;
  /** A registered public client whose redirect URI is `http://127.0.0.1/callback`; else one is registered. */
  clientId?: string;
  /** The name the consent screen shows for a client registered here. */
  clientName?: string;
  /** How long to wait for the person (default 5 minutes). */
  timeoutMs?: number;
  onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
  fetch?: typeof fetch;
}

/**
 * Signs a person in from a command-line program (RFC 8252): listens on a free loopback port,
 * registers a public client if none is given (RFC 7591), hands the authorization URL (PKCE S256,
 * `resource` = the API, RFC 8707) to `openUrl`, waits for the browser's redirect back, checks its
 * `state` and `iss`, and exchanges the code. Node only.
 *
 * @example
 * const session = await authorizeWithLoopback({
 *   baseUrl: 'https://workmgmt.example',
 *   openUrl: (url) => console.log(`Open ${url} to sign in`),
 * });
 * const wm = new WorkmgmtClient({ baseUrl: 'https://workmgmt.example', token: session });
 */
export async function authorizeWithLoopback(options: LoopbackSignInOptions): Promise<OAuthSession> {
  const { createServer } = await import('node:http');
  const issuer = new URL(options.baseUrl);
  const requestOpts = requestOptions(issuer, options.fetch);
  const as = await discover(issuer, requestOpts);
  if (!as.authorization_endpoint) throw new Error(`${options.baseUrl} does not advertise an authorization endpoint`);

  let deliver: (url: URL) => void = () => {};
  const redirected = new Promise<URL>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('You can close this window and return to the terminal.\n');
    deliver(url);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  try {
    const { port } = server.address() as { port: number };
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    const clientId =
      options.clientId ??
      (
        await oauth.processDynamicClientRegistrationResponse(
          await oauth.dynamicClientRegistrationRequest(
            as,
            {
              client_name: options.clientName ?? 'workmgmt command line',
              redirect_uris: [redirectUri],
              grant_types: ['authorization_code', 'refresh_token'],
              token_endpoint_auth_method: 'none',
            },
            requestOpts,
          ),
        )
      ).client_id;
    const client = { client_id: clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const resource = `${options.baseUrl.replace(/\/+$/, '')}/api`;
    const authorize = new URL(as.authorization_endpoint);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: options.scope ?? 'read write',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource,
    }))
      authorize.searchParams.set(name, value);
    await options.openUrl(authorize.href);

    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error('No answer from the sign-in page in time.')),
        options.timeoutMs ?? 300_000,
      );
    });
    const callback = await Promise.race([redirected, timeout]).finally(() => clearTimeout(timer));
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri,
      verifier,
      {
        ...requestOpts,
        additionalParameters: { resource },
      },
    );
    const tokens = keep(await oauth.processAuthorizationCodeResponse(as, client, response));
    await options.onTokens?.(tokens);
    return new OAuthSession({
      baseUrl: options.baseUrl,
      clientId,
      tokens,
      onTokens: options.onTokens,
      fetch: options.fetch,
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
