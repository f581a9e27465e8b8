import { createHash } from 'node:crypto';
import { describe, expect, test, vi } from 'vitest';
import type { AuthError } from '../src/auth/auth-error.js';
import { authenticateOAuth } from '../src/auth/oauth/access.js';
import { authenticateClient } from '../src/auth/oauth/client-auth.js';
import { OAuthError } from '../src/auth/oauth/errors.js';
import { errorHeaders } from '../src/http/problem.js';
import { readForm, singleValued } from '../src/auth/oauth/params.js';
import { redirectUriProblem } from '../src/auth/oauth/redirect-uri.js';
import { CONSENT_SCOPES, DEFAULT_SCOPE, parseScope, SCOPE_NAMES } from '../src/auth/oauth/scopes.js';
import type { SigningKeys } from '../src/auth/oauth/signing-keys.js';
import { revokeGrant, token } from '../src/auth/oauth/token.js';
import {
  ACCESS_TOKEN_SECONDS,
  ACCESS_TOKEN_TYPE,
  CODE_SECONDS,
  GRANT_DAYS,
  issueTokens,
  looksLikeJwt,
  verifyAccessToken,
} from '../src/auth/oauth/tokens.js';
import { hashToken } from '../src/auth/pat-token.js';
import { testConfig } from '../src/config.js';
import type { Context } from '../src/context.js';
import type { Db } from '../src/db/client.js';
import { selected } from './support/prisma-select.js';

// The OAuth server's checks one at a time, over an in-memory stand-in for its tables, so that
// mutation testing (stryker/oauth.config.mjs) judges each change to them in milliseconds. The
// same rules through the whole stack and a real database: test/oauth-flow.test.ts,
// test/oauth-negative.test.ts, test/oauth-registration-redirect-uris.test.ts.

const config = testConfig({ baseUrl: 'https://work.example.test' });
const AUDIENCE = 'https://work.example.test/api';
const ORG = 'aaaaaaaa-0000-4000-8000-000000000001';
const SECRET = 'cs_the-client-secret';
const VERIFIER = 'v'.repeat(43);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const DAY = 24 * 3600 * 1000;

/** What an OAuthError thrown (or returned as a promise) says, or null when nothing is thrown. */
async function oauthError(
  f: () => unknown,
): Promise<{ error: string; description: string; status: number; headers: Record<string, string> } | null> {
  try {
    await f();
    return null;
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return { error: error.code, description: error.message, status: error.status, headers: errorHeaders(error) };
  }
}

describe('redirect URIs a client may register', () => {
  test("https anywhere, http on loopback only, and native apps' private-use schemes", () => {
    for (const uri of [
      'https://client.example.test/cb?x=1',
      'http://localhost:8080/cb',
      'http://127.0.0.1/cb',
      'http://[::1]:9000/',
      'com.example.app:/cb',
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'https://[2001:db8::1]/cb',
      'https://10.0.0.1/cb',
    ]) {
      expect(redirectUriProblem(uri), uri).toBeNull();
    }
  });

  test('each refusal says what is wrong', () => {
    const problems: [string, string][] = [
      ['/cb', '/cb is not an absolute URI'],
      ['https://client.example.test/cb#x', 'https://client.example.test/cb#x has a fragment'],
      ['https://client.example.test/cb#', 'https://client.example.test/cb# has a fragment'],
      [
        'https://user:pw@client.example.test/cb',
        'https://user:pw@client.example.test/cb has userinfo (user:password@): register the address without it',
      ],
      [
        'https://user@client.example.test/cb',
        'https://user@client.example.test/cb has userinfo (user:password@): register the address without it',
      ],
      [
        'https://:pw@client.example.test/cb',
        'https://:pw@client.example.test/cb has userinfo (user:password@): register the address without it',
      ],
      [
        'https://@client.example.test/cb',
        'https://@client.example.test/cb has userinfo (user:password@): register the address without it',
      ],
      [
        'https://*.client.example.test/cb',
        'https://*.client.example.test/cb has a wildcard host: redirect URIs are matched exactly, register each address',
      ],
      [
        'https://client_x.example.test/cb',
        'https://client_x.example.test/cb: the host is not a DNS name or an IP address',
      ],
      [
        'https://-client.example.test/cb',
        'https://-client.example.test/cb: the host is not a DNS name or an IP address',
      ],
      [
        'http://client.example.test/cb',
        'http://client.example.test/cb: http is allowed only on loopback (localhost, 127.0.0.1, [::1])',
      ],
      ['http://127.0.0.2/cb', 'http://127.0.0.2/cb: http is allowed only on loopback (localhost, 127.0.0.1, [::1])'],
      ['javascript:alert(1)', 'javascript:alert(1): the javascript: scheme is not allowed'],
      ['data:text/html,x', 'data:text/html,x: the data: scheme is not allowed'],
      ['file:///etc/passwd', 'file:///etc/passwd: the file: scheme is not allowed'],
      ['chrome-extension://abc/cb', 'chrome-extension://abc/cb: the chrome-extension: scheme is not allowed'],
      ['ms-settings:privacy', 'ms-settings:privacy: the ms-settings: scheme is not allowed'],
    ];
    for (const [uri, problem] of problems) expect(redirectUriProblem(uri), uri).toBe(problem);
  });

  test("no scheme that already means something to a browser or the system is a native app's", () => {
    const reserved = [
      'javascript',
      'data',
      'file',
      'blob',
      'about',
      'filesystem',
      'vbscript',
      'view-source',
      'ftp',
      'ws',
      'wss',
      'mailto',
      'tel',
      'sms',
      'urn',
      'news',
      'nntp',
      'gopher',
      'telnet',
      'ldap',
      'jar',
      'content',
      'intent',
      'chrome',
      'chrome-extension',
      'moz-extension',
      'edge',
      'resource',
      'ms-settings',
    ];
    for (const scheme of reserved) {
      const uri = `${scheme}://app.example.test/cb`;
      expect(redirectUriProblem(uri), uri).toBe(`${uri}: the ${scheme}: scheme is not allowed`);
    }
  });

  test('loopback is no excuse for a reserved scheme; an @ past the authority is no userinfo', () => {
    expect(redirectUriProblem('javascript://localhost/cb')).toBe(
      'javascript://localhost/cb: the javascript: scheme is not allowed',
    );
    expect(redirectUriProblem('https://client.example.test/cb?next=https://a@b')).toBeNull();
    expect(redirectUriProblem('https://a.example.test/cb')).toBeNull();
  });

  test('a host label is letters, digits and inner hyphens, at most 63 of them', () => {
    expect(redirectUriProblem(`https://${'a'.repeat(63)}.example.test/cb`)).toBeNull();
    expect(redirectUriProblem(`https://${'a'.repeat(64)}.example.test/cb`)).toMatch(/the host is not a DNS name/);
    expect(redirectUriProblem('https://a-b.c/cb')).toBeNull();
    expect(redirectUriProblem('https://a.b-/cb')).toMatch(/the host is not a DNS name/);
    expect(redirectUriProblem('https://a..b/cb')).toMatch(/the host is not a DNS name/);
  });
});

describe('scopes', () => {
  test('are read and write; asking for nothing is asking for both', () => {
    expect(SCOPE_NAMES).toEqual(['read', 'write']);
    expect(DEFAULT_SCOPE).toBe('read write');
    expect(CONSENT_SCOPES).toEqual({
      read: 'See your organization: its projects, issues and people',
      write: 'Create and change what your role allows, as you (listed for each organization below)',
    });
  });

  test('parse into the known names, in their order, once each; an unknown name or none is refused', () => {
    expect(parseScope('write read')).toEqual(['read', 'write']);
    expect(parseScope('read  read')).toEqual(['read']);
    expect(parseScope('write')).toEqual(['write']);
    expect(parseScope('read admin')).toBeNull();
    for (const inherited of ['toString', 'constructor', '__proto__', 'hasOwnProperty'])
      expect(parseScope(inherited), inherited).toBeNull();
    expect(parseScope('')).toBeNull();
    expect(parseScope(' ')).toBeNull();
  });
});

describe('back-channel parameters', () => {
  const form = (body: string, type = 'application/x-www-form-urlencoded') =>
    new Request('https://work.example.test/oauth/token', { method: 'POST', body, headers: { 'content-type': type } });

  test('each has one value; an empty one is none', () => {
    const params = singleValued(new URLSearchParams('a=1&b=&c=3'));
    expect([params.get('a'), params.get('b'), params.get('c'), params.get('d')]).toEqual([
      '1',
      undefined,
      '3',
      undefined,
    ]);
    expect(params.duplicated).toEqual([]);
  });

  test('repeating one is refused, each named once', async () => {
    expect(singleValued(new URLSearchParams('a=1&a=2&a=3&b=1&b=2&c=1')).duplicated).toEqual(['a', 'b']);
    expect(await oauthError(() => readForm(form('code=1&code=2&scope=a&scope=b')))).toMatchObject({
      error: 'invalid_request',
      description: 'Parameters must not repeat: code, scope.',
    });
  });

  test('come form-encoded, with or without a charset; anything else is refused', async () => {
    expect((await readForm(form('a=1'))).get('a')).toBe('1');
    expect((await readForm(form('a=1', 'Application/X-WWW-Form-Urlencoded ; charset=utf-8'))).get('a')).toBe('1');
    for (const type of [
      'application/json',
      'application/x-www-form-urlencodedx',
      'text/plain; application/x-www-form-urlencoded',
    ]) {
      expect(await oauthError(() => readForm(form('a=1', type))), type).toMatchObject({
        error: 'invalid_request',
        description: 'Send the parameters as application/x-www-form-urlencoded.',
      });
    }
    const untyped = new Request('https://work.example.test/oauth/token', {
      method: 'POST',
      body: new Uint8Array([97]),
    });
    expect(await oauthError(() => readForm(untyped))).toMatchObject({ error: 'invalid_request' });
  });
});

interface Client {
  id: string;
  tokenEndpointAuthMethod: string;
  secretHash: Uint8Array | null;
  grantTypes: string[];
  redirectUris: string[];
}
interface Grant {
  id: string;
  clientId: string;
  userId: string;
  orgId: string;
  scope: string;
  revokedAt: Date | null;
  expiresAt: Date;
}
interface Code {
  id: string;
  codeHash: Uint8Array;
  grantId: string;
  redirectUri: string;
  codeChallenge: string;
  expiresAt: Date;
  usedAt: Date | null;
}
interface Refresh {
  id: string;
  tokenHash: Uint8Array;
  grantId: string;
  scope: string;
  usedAt: Date | null;
}

/** The OAuth tables in memory: what client authentication and the token endpoint read and write. */
function oauthStore() {
  const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
  const clients: Client[] = [];
  const grants: Grant[] = [];
  const codes: Code[] = [];
  const refreshTokens: Refresh[] = [];
  // `include: { grant: true }` adds the row's grant, as Prisma does; without it there is none.
  const withGrant = <T extends { grantId: string }>(row: T | undefined, include?: { grant?: boolean }) =>
    row ? { ...row, ...(include?.grant ? { grant: grants.find((g) => g.id === row.grantId)! } : {}) } : null;
  const prisma = {
    oAuthClient: {
      findUnique: async ({ where }: { where: { id: string } }) => clients.find((c) => c.id === where.id) ?? null,
    },
    oAuthGrant: {
      async updateMany({ where, data }: { where: { id: string; revokedAt: null }; data: { revokedAt: Date } }) {
        const rows = grants.filter((g) => g.id === where.id && g.revokedAt === null);
        for (const g of rows) g.revokedAt = data.revokedAt;
        return { count: rows.length };
      },
    },
    oAuthCode: {
      findUnique: async ({ where, include }: { where: { codeHash: Uint8Array }; include?: { grant?: boolean } }) =>
        withGrant(
          codes.find((c) => same(c.codeHash, where.codeHash)),
          include,
        ),
      async updateMany({ where, data }: { where: { id: string; usedAt: null }; data: { usedAt: Date } }) {
        const rows = codes.filter((c) => c.id === where.id && c.usedAt === null);
        for (const c of rows) c.usedAt = data.usedAt;
        return { count: rows.length };
      },
    },
    oAuthRefreshToken: {
      findUnique: async ({ where, include }: { where: { tokenHash: Uint8Array }; include?: { grant?: boolean } }) =>
        withGrant(
          refreshTokens.find((r) => same(r.tokenHash, where.tokenHash)),
          include,
        ),
      async updateMany({ where, data }: { where: { id: string; usedAt: null }; data: { usedAt: Date } }) {
        const rows = refreshTokens.filter((r) => r.id === where.id && r.usedAt === null);
        for (const r of rows) r.usedAt = data.usedAt;
        return { count: rows.length };
      },
      async create({ data }: { data: Omit<Refresh, 'id' | 'usedAt'> }) {
        refreshTokens.push({ id: `r${refreshTokens.length + 1}`, usedAt: null, ...data });
      },
    },
    $transaction: async <T>(f: (tx: unknown) => Promise<T>) => f(prisma),
  };
  return { prisma, db: prisma as unknown as Db, clients, grants, codes, refreshTokens };
}

/** Signs by writing the claims out: enough to see what an access token would say. */
const keys = {
  sign: async (claims: object, typ: string, seconds: number) =>
    `${Buffer.from(JSON.stringify({ typ, seconds })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`,
} as unknown as SigningKeys;
const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, string>;
const headerOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as { typ: string; seconds: number };

function tokenRequest(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return new Request('https://work.example.test/oauth/token', {
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('client authentication', () => {
  function world() {
    const store = oauthStore();
    store.clients.push(
      {
        id: 'confidential',
        tokenEndpointAuthMethod: 'client_secret_basic',
        secretHash: hashToken(SECRET),
        grantTypes: [],
        redirectUris: [],
      },
      {
        id: 'poster',
        tokenEndpointAuthMethod: 'client_secret_post',
        secretHash: hashToken(SECRET),
        grantTypes: [],
        redirectUris: [],
      },
      { id: 'public', tokenEndpointAuthMethod: 'none', secretHash: null, grantTypes: [], redirectUris: [] },
      {
        id: 'no secret',
        tokenEndpointAuthMethod: 'client_secret_post',
        secretHash: null,
        grantTypes: [],
        redirectUris: [],
      },
      {
        id: 'a b:c',
        tokenEndpointAuthMethod: 'client_secret_basic',
        secretHash: hashToken('s p'),
        grantTypes: [],
        redirectUris: [],
      },
    );
    const authenticate = (fields: Record<string, string>, headers: Record<string, string> = {}) => {
      const request = tokenRequest(fields, headers);
      return authenticateClient(store.db, request, singleValued(new URLSearchParams(fields)));
    };
    return { authenticate };
  }
  const invalidClient = (description: string) => ({
    error: 'invalid_client',
    status: 401,
    description,
    headers: { 'www-authenticate': 'Basic realm="oauth"' },
  });

  test('each client by the one method it registered', async () => {
    const { authenticate } = world();
    expect((await authenticate({}, { authorization: basic('confidential', SECRET) })).id).toBe('confidential');
    expect(
      (
        await authenticate(
          { client_id: 'confidential' },
          { authorization: `basic ${Buffer.from(`confidential:${SECRET}`).toString('base64')}` },
        )
      ).id,
    ).toBe('confidential');
    expect((await authenticate({ client_id: 'poster', client_secret: SECRET })).id).toBe('poster');
    expect((await authenticate({ client_id: 'public' })).id).toBe('public');
  });

  test('Basic credentials are the whole header, and an empty client id is none', async () => {
    const { authenticate } = world();
    expect(await oauthError(() => authenticate({}, { authorization: `${basic('confidential', SECRET)}!` }))).toEqual(
      invalidClient('Malformed HTTP Basic client credentials.'),
    );
    expect(await oauthError(() => authenticate({}, { authorization: basic('', SECRET) }))).toEqual(
      invalidClient('Client authentication failed: no client_id.'),
    );
  });

  test('Basic credentials are form-decoded (RFC 6749 §2.3.1)', async () => {
    const { authenticate } = world();
    expect((await authenticate({}, { authorization: basic('a+b%3Ac', 's+p') })).id).toBe('a b:c');
  });

  test('a wrong secret, an unknown client, or no client_id is invalid_client with a Basic challenge', async () => {
    const { authenticate } = world();
    expect(await oauthError(() => authenticate({}, { authorization: basic('confidential', 'wrong') }))).toEqual(
      invalidClient('Client authentication failed: wrong secret.'),
    );
    expect(await oauthError(() => authenticate({}, { authorization: basic('confidential', '') }))).toEqual(
      invalidClient('Client authentication failed: wrong secret.'),
    );
    expect(await oauthError(() => authenticate({ client_id: 'poster', client_secret: 'wrong' }))).toEqual(
      invalidClient('Client authentication failed: wrong secret.'),
    );
    expect(await oauthError(() => authenticate({ client_id: 'nobody' }))).toEqual(
      invalidClient('Client authentication failed: unknown client.'),
    );
    expect(await oauthError(() => authenticate({ client_id: 'nobody\u0000' }))).toEqual(
      invalidClient('Client authentication failed: unknown client.'),
    );
    expect(await oauthError(() => authenticate({}))).toEqual(
      invalidClient('Client authentication failed: no client_id.'),
    );
  });

  test("a client whose secret was never stored cannot authenticate with a secret, not even the hash of nothing's zeroes", async () => {
    const { authenticate } = world();
    expect(await oauthError(() => authenticate({ client_id: 'no secret', client_secret: SECRET }))).toEqual(
      invalidClient('Client authentication failed: wrong secret.'),
    );
  });

  test('another method than the registered one is refused, public clients included', async () => {
    const { authenticate } = world();
    expect(await oauthError(() => authenticate({ client_id: 'confidential' }))).toEqual(
      invalidClient('This client authenticates with client_secret_basic, not none.'),
    );
    expect(await oauthError(() => authenticate({ client_id: 'confidential', client_secret: SECRET }))).toEqual(
      invalidClient('This client authenticates with client_secret_basic, not client_secret_post.'),
    );
    expect(await oauthError(() => authenticate({}, { authorization: basic('poster', SECRET) }))).toEqual(
      invalidClient('This client authenticates with client_secret_post, not client_secret_basic.'),
    );
    expect(await oauthError(() => authenticate({ client_id: 'public', client_secret: 'x' }))).toEqual(
      invalidClient('This client authenticates with none, not client_secret_post.'),
    );
  });

  test('malformed Basic credentials, two methods at once, or two client ids are refused', async () => {
    const { authenticate } = world();
    for (const authorization of [
      'Bearer abc',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      'Basic !!!',
      `xBasic ${Buffer.from('a:b').toString('base64')}`,
    ]) {
      expect(await oauthError(() => authenticate({}, { authorization })), authorization).toEqual(
        invalidClient('Malformed HTTP Basic client credentials.'),
      );
    }
    expect(
      await oauthError(() => authenticate({ client_secret: SECRET }, { authorization: basic('confidential', SECRET) })),
    ).toMatchObject({
      error: 'invalid_request',
      status: 400,
      description: 'Use one client authentication method, not two.',
    });
    expect(
      await oauthError(() => authenticate({ client_id: 'poster' }, { authorization: basic('confidential', SECRET) })),
    ).toMatchObject({
      error: 'invalid_request',
      description: 'client_id differs from the authenticated client.',
    });
  });
});

describe('the token endpoint', () => {
  const REDIRECT = 'https://client.example.test/cb';
  function world(options: { grantTypes?: string[]; redirectUris?: string[] } = {}) {
    const store = oauthStore();
    const admitted: string[] = [];
    let allowed = true;
    const ctx = {
      prisma: store.prisma,
      config,
      rateLimits: [],
      limiter: {
        admit: async (subject: string) => {
          admitted.push(subject);
          return {
            allowed,
            decisions: [
              {
                policy: { name: 'oauth-token', limit: 60, windowSeconds: 60 },
                decision: { allowed, remaining: 0, limit: 60, resetSeconds: 7, retryAfterSeconds: 7 },
              },
            ],
          };
        },
      },
    } as unknown as Context;
    store.clients.push({
      id: 'app',
      tokenEndpointAuthMethod: 'none',
      secretHash: null,
      grantTypes: options.grantTypes ?? ['authorization_code', 'refresh_token'],
      redirectUris: options.redirectUris ?? [REDIRECT],
    });
    store.clients.push({
      id: 'other',
      tokenEndpointAuthMethod: 'none',
      secretHash: null,
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: [REDIRECT],
    });
    store.grants.push({
      id: 'g1',
      clientId: 'app',
      userId: 'u1',
      orgId: ORG,
      scope: 'read write',
      revokedAt: null,
      expiresAt: new Date(Date.now() + GRANT_DAYS * DAY),
    });
    store.codes.push({
      id: 'c1',
      codeHash: hashToken('the-code'),
      grantId: 'g1',
      redirectUri: REDIRECT,
      codeChallenge: CHALLENGE,
      expiresAt: new Date(Date.now() + 60_000),
      usedAt: null,
    });
    store.refreshTokens.push({
      id: 'r0',
      tokenHash: hashToken('rt_old'),
      grantId: 'g1',
      scope: 'read write',
      usedAt: null,
    });
    const exchange = async (fields: Record<string, string>) => {
      const response = await token(tokenRequest({ client_id: 'app', ...fields }), ctx, keys);
      return {
        status: response.status,
        headers: response.headers,
        body: (await response.json()) as Record<string, string>,
      };
    };
    const codeFields = {
      grant_type: 'authorization_code',
      code: 'the-code',
      code_verifier: VERIFIER,
      redirect_uri: REDIRECT,
      resource: AUDIENCE,
    };
    const refreshFields = { grant_type: 'refresh_token', refresh_token: 'rt_old', resource: AUDIENCE };
    return { ...store, ctx, admitted, exchange, codeFields, refreshFields, refuse: () => (allowed = false) };
  }
  const grantError = (description: string) => ({ error: 'invalid_grant', status: 400, description, headers: {} });

  test('a code with its PKCE verifier is exchanged once for an access token and a refresh token', async () => {
    const w = world();
    const { status, headers, body } = await w.exchange(w.codeFields);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('pragma')).toBe('no-cache');
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, scope: 'read write' });
    expect(claimsOf(body.access_token!)).toMatchObject({
      sub: 'u1',
      client_id: 'app',
      scope: 'read write',
      org_id: ORG,
      grant_id: 'g1',
      iss: config.baseUrl,
      aud: AUDIENCE,
    });
    expect(headerOf(body.access_token!)).toEqual({ typ: ACCESS_TOKEN_TYPE, seconds: ACCESS_TOKEN_SECONDS });
    expect(body.refresh_token).toMatch(/^rt_[A-Za-z0-9_-]{43}$/);
    expect(w.refreshTokens.at(-1)).toMatchObject({ grantId: 'g1', scope: 'read write' });
    expect(Buffer.from(w.refreshTokens.at(-1)!.tokenHash).equals(Buffer.from(hashToken(body.refresh_token!)))).toBe(
      true,
    );
    expect(w.codes[0]!.usedAt).toBeInstanceOf(Date);
    expect(w.admitted).toEqual(['client:app']);
  });

  test('a client not registered for refresh gets no refresh token', async () => {
    const w = world({ grantTypes: ['authorization_code'] });
    const { body } = await w.exchange(w.codeFields);
    expect(body.refresh_token).toBeUndefined();
    expect(w.refreshTokens).toHaveLength(1);
    expect(await oauthError(() => w.exchange(w.refreshFields))).toMatchObject({
      error: 'unauthorized_client',
      description: 'This client is not registered for refresh_token.',
    });
  });

  test('a used code or refresh token replayed with other parameters still withdraws the grant', async () => {
    const code = world();
    await code.exchange(code.codeFields);
    expect(await oauthError(() => code.exchange({ ...code.codeFields, code_verifier: 'w'.repeat(43) }))).toEqual(
      grantError('The code was already used; every token issued from it has been revoked.'),
    );
    expect(code.grants[0]!.revokedAt).toBeInstanceOf(Date);
    const refresh = world();
    await refresh.exchange(refresh.refreshFields);
    expect(await oauthError(() => refresh.exchange({ ...refresh.refreshFields, scope: 'admin' }))).toEqual(
      grantError('The refresh token was already used; the whole authorization has been revoked.'),
    );
    expect(refresh.grants[0]!.revokedAt).toBeInstanceOf(Date);
  });

  test('a second use of a code is refused and withdraws the grant', async () => {
    const w = world();
    await w.exchange(w.codeFields);
    expect(await oauthError(() => w.exchange(w.codeFields))).toEqual(
      grantError('The code was already used; every token issued from it has been revoked.'),
    );
    expect(w.grants[0]!.revokedAt).toBeInstanceOf(Date);
  });

  test('a code claimed by a concurrent exchange between the read and the claim withdraws the grant too', async () => {
    const w = world();
    const read = w.prisma.oAuthCode.findUnique;
    w.prisma.oAuthCode.findUnique = async (args) => {
      const row = await read(args);
      w.codes[0]!.usedAt = new Date();
      return row;
    };
    expect(await oauthError(() => w.exchange(w.codeFields))).toEqual(
      grantError('The code was already used; every token issued from it has been revoked.'),
    );
    expect(w.grants[0]!.revokedAt).toBeInstanceOf(Date);
  });

  test('the wrong verifier, redirect URI, resource or client is refused, and the code stays unused', async () => {
    const w = world();
    const cases: [Record<string, string>, object][] = [
      [{ code_verifier: 'w'.repeat(43) }, grantError('code_verifier does not match the code_challenge.')],
      [{ redirect_uri: `${REDIRECT}/other` }, grantError('redirect_uri must be the one of the authorization request.')],
      [
        { resource: 'https://work.example.test/' },
        { error: 'invalid_target', description: `resource is required and must be ${AUDIENCE}.` },
      ],
      [{ resource: '' }, { error: 'invalid_target' }],
      [{ code: 'another-code' }, grantError('The code is not valid for this client.')],
      [{ client_id: 'other' }, grantError('The code is not valid for this client.')],
      [{ code: '' }, { error: 'invalid_request', description: 'code is required.' }],
      [{ code_verifier: '' }, { error: 'invalid_request', description: 'code_verifier is required (PKCE).' }],
    ];
    for (const [fields, expected] of cases) {
      expect(await oauthError(() => w.exchange({ ...w.codeFields, ...fields })), JSON.stringify(fields)).toMatchObject(
        expected,
      );
    }
    expect(w.codes[0]!.usedAt).toBeNull();
    expect(w.grants[0]!.revokedAt).toBeNull();
  });

  test('the verifier is 43 to 128 unreserved characters', async () => {
    for (const [verifier, ok] of [
      ['a'.repeat(42), false],
      ['a'.repeat(129), false],
      [`${'a'.repeat(42)}!`, false],
      [`-._~${'Az09'.repeat(10)}`, true],
      ['a'.repeat(128), true],
    ] as const) {
      const w = world();
      w.codes[0]!.codeChallenge = createHash('sha256').update(verifier).digest('base64url');
      const error = await oauthError(() => w.exchange({ ...w.codeFields, code_verifier: verifier }));
      expect(error, verifier).toEqual(
        ok
          ? null
          : {
              error: 'invalid_request',
              status: 400,
              headers: {},
              description: 'code_verifier must be 43-128 unreserved characters.',
            },
      );
    }
  });

  test('redirect_uri may be left out only when the client registered exactly one', async () => {
    const { redirect_uri: _omitted, ...fields } = world().codeFields;
    const one = world();
    expect((await one.exchange(fields)).status).toBe(200);
    const two = world({ redirectUris: [REDIRECT, 'https://client.example.test/other'] });
    expect(await oauthError(() => two.exchange(fields))).toEqual(
      grantError('redirect_uri must be the one of the authorization request.'),
    );
  });

  test('a code or an authorization ends at its expiry instant', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:00:00Z') });
    try {
      const code = world();
      code.codes[0]!.expiresAt = new Date();
      expect(await oauthError(() => code.exchange(code.codeFields))).toEqual(grantError('The code has expired.'));
      const grant = world();
      grant.grants[0]!.expiresAt = new Date();
      expect(await oauthError(() => grant.exchange(grant.refreshFields))).toEqual(
        grantError('The authorization has expired; ask the user again.'),
      );
    } finally {
      vi.useRealTimers();
    }
  });

  test('a refresh asking for the whole scope in another order gets it in the usual order', async () => {
    const w = world();
    expect((await w.exchange({ ...w.refreshFields, scope: 'write read' })).body.scope).toBe('read write');
  });

  test('an expired code, or one of a revoked authorization, is refused', async () => {
    const expired = world();
    expired.codes[0]!.expiresAt = new Date(Date.now() - 1);
    expect(await oauthError(() => expired.exchange(expired.codeFields))).toEqual(grantError('The code has expired.'));
    const revoked = world();
    revoked.grants[0]!.revokedAt = new Date();
    expect(await oauthError(() => revoked.exchange(revoked.codeFields))).toEqual(
      grantError('The authorization has been revoked.'),
    );
  });

  test('a refresh token is exchanged once: the new one works, the old one withdraws the grant', async () => {
    const w = world();
    const first = await w.exchange(w.refreshFields);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toMatchObject({ token_type: 'Bearer', scope: 'read write' });
    expect(first.body.refresh_token).toMatch(/^rt_/);
    expect(w.refreshTokens[0]!.usedAt).toBeInstanceOf(Date);
    const second = await w.exchange({ ...w.refreshFields, refresh_token: first.body.refresh_token! });
    expect(second.status).toBe(200);
    expect(w.grants[0]!.revokedAt).toBeNull();
    expect(await oauthError(() => w.exchange(w.refreshFields))).toEqual(
      grantError('The refresh token was already used; the whole authorization has been revoked.'),
    );
    expect(w.grants[0]!.revokedAt).toBeInstanceOf(Date);
  });

  test('a refresh token claimed by a concurrent refresh withdraws the grant', async () => {
    const w = world();
    const read = w.prisma.oAuthRefreshToken.findUnique;
    w.prisma.oAuthRefreshToken.findUnique = async (args) => {
      const row = await read(args);
      w.refreshTokens[0]!.usedAt = new Date();
      return row;
    };
    expect(await oauthError(() => w.exchange(w.refreshFields))).toEqual(
      grantError('The refresh token was already used; the whole authorization has been revoked.'),
    );
    expect(w.grants[0]!.revokedAt).toBeInstanceOf(Date);
    expect(w.refreshTokens).toHaveLength(1);
  });

  test("a refresh may narrow the access token's scope, never widen it; the new refresh token keeps the old scope", async () => {
    const w = world();
    const narrowed = await w.exchange({ ...w.refreshFields, scope: 'read' });
    expect(narrowed.body.scope).toBe('read');
    expect(claimsOf(narrowed.body.access_token!).scope).toBe('read');
    expect(w.refreshTokens.at(-1)!.scope).toBe('read write');
    const narrow = world();
    narrow.refreshTokens[0]!.scope = 'read';
    for (const scope of ['read write', 'write', 'admin', ' ']) {
      expect(await oauthError(() => narrow.exchange({ ...narrow.refreshFields, scope })), scope).toMatchObject({
        error: 'invalid_scope',
        description: 'A refresh can only keep or narrow the scope (read).',
      });
    }
    expect(narrow.refreshTokens[0]!.usedAt).toBeNull();
  });

  test('a refresh token of another client, unknown, revoked or expired authorization, or a missing resource is refused', async () => {
    const w = world();
    const cases: [Record<string, string>, object][] = [
      [{ client_id: 'other' }, grantError('The refresh token is not valid for this client.')],
      [{ refresh_token: 'rt_unknown' }, grantError('The refresh token is not valid for this client.')],
      [{ refresh_token: '' }, { error: 'invalid_request', description: 'refresh_token is required.' }],
      [
        { code_verifier: VERIFIER },
        { error: 'invalid_request', description: 'code_verifier is not a parameter of the refresh_token grant.' },
      ],
      [{ resource: 'https://elsewhere.test/api' }, { error: 'invalid_target' }],
    ];
    for (const [fields, expected] of cases) {
      expect(
        await oauthError(() => w.exchange({ ...w.refreshFields, ...fields })),
        JSON.stringify(fields),
      ).toMatchObject(expected);
    }
    expect(w.refreshTokens[0]!.usedAt).toBeNull();
    const revoked = world();
    revoked.grants[0]!.revokedAt = new Date();
    expect(await oauthError(() => revoked.exchange(revoked.refreshFields))).toEqual(
      grantError('The authorization has been revoked.'),
    );
    const expired = world();
    expired.grants[0]!.expiresAt = new Date(Date.now() - 1);
    expect(await oauthError(() => expired.exchange(expired.refreshFields))).toEqual(
      grantError('The authorization has expired; ask the user again.'),
    );
  });

  test('the grant type must be given, known, and registered by the client', async () => {
    const w = world();
    expect(await oauthError(() => w.exchange({}))).toMatchObject({
      error: 'invalid_request',
      description: 'grant_type is required.',
    });
    expect(await oauthError(() => w.exchange({ grant_type: 'password' }))).toMatchObject({
      error: 'unsupported_grant_type',
      description: 'grant_type must be authorization_code or refresh_token.',
    });
    const refreshOnly = world({ grantTypes: ['refresh_token'] });
    expect(await oauthError(() => refreshOnly.exchange(refreshOnly.codeFields))).toMatchObject({
      error: 'unauthorized_client',
      description: 'This client is not registered for authorization_code.',
    });
  });

  test("past the client's bucket the answer is 429 with Retry-After, before any code is looked at", async () => {
    const w = world();
    w.refuse();
    expect(await oauthError(() => w.exchange(w.codeFields))).toEqual({
      error: 'temporarily_unavailable',
      status: 429,
      description: 'Too many token requests. Retry in 7 seconds.',
      headers: { 'retry-after': '7' },
    });
    expect(w.codes[0]!.usedAt).toBeNull();
  });

  test('revoking a grant stamps it once', async () => {
    const w = world();
    await revokeGrant(w.ctx, 'g1');
    const first = w.grants[0]!.revokedAt;
    expect(first).toBeInstanceOf(Date);
    await revokeGrant(w.ctx, 'g1');
    expect(w.grants[0]!.revokedAt).toBe(first);
  });
});

describe('access tokens', () => {
  test('last an hour, codes a minute, grants 90 days', () => {
    expect([ACCESS_TOKEN_SECONDS, CODE_SECONDS, GRANT_DAYS, ACCESS_TOKEN_TYPE]).toEqual([3600, 60, 90, 'at+jwt']);
  });

  test('issued with a refresh token only when asked, the refresh token with its own scope', async () => {
    const store = oauthStore();
    const grant = { id: 'g1', clientId: 'app', userId: 'u1', orgId: ORG };
    const without = await issueTokens(store.db, keys, config, grant, 'read', false);
    expect(without).toEqual({
      access_token: without.access_token,
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'read',
    });
    expect(claimsOf(without.access_token).jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const withRefresh = await issueTokens(store.db, keys, config, grant, 'read', true, 'read write');
    expect(store.refreshTokens).toEqual([
      { id: 'r1', usedAt: null, grantId: 'g1', scope: 'read write', tokenHash: hashToken(withRefresh.refresh_token!) },
    ]);
  });

  test('are verified for our issuer, our API audience and the at+jwt type, and must carry every claim', async () => {
    const claims = { sub: 'u1', client_id: 'c1', scope: 'read', org_id: ORG, grant_id: 'g1' };
    let asked: unknown;
    const verifying = (payload: object) =>
      ({
        verify: async (_t: string, options: unknown) => {
          asked = options;
          return payload;
        },
      }) as unknown as SigningKeys;
    expect(await verifyAccessToken(verifying(claims), config, 'a.b.c')).toEqual(claims);
    expect(asked).toEqual({ issuer: config.baseUrl, audience: AUDIENCE, typ: 'at+jwt' });
    for (const name of Object.keys(claims)) {
      const missing = { ...claims, [name]: 42 };
      await expect(verifyAccessToken(verifying(missing), config, 'a.b.c')).rejects.toThrow(
        `access token without ${name}`,
      );
    }
  });

  test('look like a JWT: three base64url parts', () => {
    expect(looksLikeJwt('eyJ0.eyJ1-_.c2ln')).toBe(true);
    for (const t of ['a.b', 'a.b.c.d', 'a..c', 'a.b.c ', ' a.b.c', 'a.b+.c', 'tok_live_x'])
      expect(looksLikeJwt(t), t).toBe(false);
  });
});

describe('authenticating an OAuth access token', () => {
  const JWT = 'a.b.c';
  const claims = {
    sub: 'u1',
    client_id: 'c1',
    scope: 'read write',
    org_id: ORG,
    grant_id: 'g1',
    exp: 0,
    iat: 0,
    jti: 'j',
  };
  function grantDb(grant: Record<string, unknown> | null) {
    const touched: unknown[] = [];
    const db = {
      oAuthGrant: {
        findUnique: async ({ where, select }: { where: { id: string }; select: Record<string, unknown> }) =>
          grant && where.id === 'g1' ? selected(grant, select) : null,
        // As Prisma: a select without a field is refused.
        async update(args: { select: Record<string, boolean> }) {
          if (!Object.values(args.select).some(Boolean)) throw new Error('select needs a field');
          touched.push(args);
          return {};
        },
      },
    } as unknown as Db;
    return { db, touched };
  }
  const liveGrant = (extra: Record<string, unknown> = {}) => ({
    revokedAt: null,
    orgId: ORG,
    userId: 'u1',
    lastUsedAt: null,
    membership: { role: 'manager' },
    ...extra,
  });
  const verified = async () => claims;

  test("a live grant gives its user, the current role in the token's organization, and the scopes", async () => {
    const { db, touched } = grantDb(liveGrant());
    expect(await authenticateOAuth(db, verified, JWT, null)).toEqual({
      kind: 'user',
      userId: 'u1',
      credential: { kind: 'oauth', id: 'g1', clientId: 'c1' },
      org: { id: ORG, role: 'manager' },
      orgBound: true,
      scopes: ['read', 'write'],
    });
    expect(await authenticateOAuth(db, verified, JWT, ORG)).toMatchObject({ kind: 'user' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(touched[0]).toMatchObject({ where: { id: 'g1' } });
  });

  test('its last use is written at most once a minute', async () => {
    const { db, touched } = grantDb(liveGrant({ lastUsedAt: new Date(Date.now() - 30_000) }));
    await authenticateOAuth(db, verified, JWT, null);
    const stale = grantDb(liveGrant({ lastUsedAt: new Date(Date.now() - 61_000) }));
    await authenticateOAuth(stale.db, verified, JWT, null);
    await new Promise((resolve) => setImmediate(resolve));
    expect(touched).toHaveLength(0);
    expect(stale.touched).toEqual([
      { where: { id: 'g1' }, data: { lastUsedAt: expect.any(Date) }, select: { id: true } },
    ]);
  });

  test('a last use exactly a minute ago is written again', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-01T00:01:00Z') });
    try {
      const { db, touched } = grantDb(liveGrant({ lastUsedAt: new Date('2026-01-01T00:00:00Z') }));
      await authenticateOAuth(db, verified, JWT, null);
      expect(touched).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  test('another kind of token is not its business', async () => {
    expect(await authenticateOAuth(grantDb(liveGrant()).db, verified, 'tok_live_abc', null)).toBeNull();
  });

  const code = (result: unknown) => (result as AuthError).code;

  test('a bad or expired signature is refused', async () => {
    const { db } = grantDb(liveGrant());
    expect(code(await authenticateOAuth(db, () => Promise.reject(new Error('signature')), JWT, null))).toBe(
      'token_invalid',
    );
    expect(
      code(
        await authenticateOAuth(
          db,
          () => Promise.reject(Object.assign(new Error('exp'), { code: 'ERR_JWT_EXPIRED' })),
          JWT,
          null,
        ),
      ),
    ).toBe('token_expired');
  });

  test('a token whose grant is gone, revoked, or names another user or organization is refused', async () => {
    expect(code(await authenticateOAuth(grantDb(null).db, verified, JWT, null))).toBe('token_invalid');
    expect(
      code(
        await authenticateOAuth(
          grantDb(liveGrant({ orgId: 'bbbbbbbb-0000-4000-8000-000000000002' })).db,
          verified,
          JWT,
          null,
        ),
      ),
    ).toBe('token_invalid');
    expect(code(await authenticateOAuth(grantDb(liveGrant({ userId: 'u2' })).db, verified, JWT, null))).toBe(
      'token_invalid',
    );
    expect(code(await authenticateOAuth(grantDb(liveGrant({ revokedAt: new Date() })).db, verified, JWT, null))).toBe(
      'token_revoked',
    );
  });

  test("X-Org-Id naming another organization than the token's is refused", async () => {
    const result = await authenticateOAuth(
      grantDb(liveGrant()).db,
      verified,
      JWT,
      'bbbbbbbb-0000-4000-8000-000000000002',
    );
    expect(result).toMatchObject({ status: 403, code: 'org_mismatch' });
  });
});
