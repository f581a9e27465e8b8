import { createHash } from 'node:crypto';
import { ORIGIN } from '../support/app.js';
import { describeCorpus, send, type Caller, type Recorded, type World } from './record.js';

/**
 * The pages' and the authorization server's refusals: the HTML error pages (not found,
 * forbidden, a cross-site form), forms answered with their mistakes, and the OAuth endpoints'
 * error shapes (RFC 6749 JSON from the token endpoint, the authorize page and its redirects,
 * registration, revocation, introspection). Pages with times in them ("3 minutes ago") are left
 * out: their text changes with the day the corpus is replayed.
 */

const REDIRECT = 'http://127.0.0.1:9999/callback';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const CHALLENGE = createHash('sha256').update('corpus verifier, long enough to be a PKCE verifier').digest('base64url');

interface Step {
  caller: Caller;
  method: string;
  path: string;
  body?: string | object;
  headers?: Record<string, string>;
  /** The session of another person than the caller's: victor, a viewer. */
  as?: 'viewer';
}

function steps(): Step[] {
  const all: Step[] = [];
  const add = (
    caller: Caller,
    method: string,
    path: string,
    body?: string | object,
    headers: Record<string, string> = {},
    as?: 'viewer',
  ) =>
    all.push({
      caller,
      method,
      path,
      body,
      headers: body === undefined || typeof body === 'object' ? headers : { ...FORM, ...headers },
      as,
    });
  const origin = { origin: ORIGIN };

  // Pages: signed out, not found, forbidden, cross-site, and forms with mistakes.
  add('anonymous', 'GET', '/orgs/acme');
  add('anonymous', 'GET', '/login');
  add('anonymous', 'GET', '/login?next=%2F%2Fevil.example');
  add('anonymous', 'POST', '/login', form({ email: 'olivia@example.com', password: 'wrong', next: '/' }), origin);
  add('anonymous', 'POST', '/login', form({ email: '', password: '' }), origin);
  add('anonymous', 'POST', '/login', form({ email: 'olivia@example.com', password: 'x' }));
  add('anonymous', 'GET', '/invite/inv_nope');
  add('anonymous', 'GET', '/set-password?token=nope');
  add('anonymous', 'GET', '/assets/nope.css');
  add('session', 'GET', '/nowhere');
  add('session', 'GET', '/orgs/globex');
  add('session', 'GET', '/orgs/nope/issues');
  add('session', 'GET', '/orgs/acme/issues/NOPE-1');
  add('session', 'GET', '/orgs/acme/issues/WEB-999');
  add('session', 'GET', '/orgs/acme/projects/NOPE');
  add('session', 'POST', '/orgs/acme/projects', form({ name: '', key: '!' }));
  add('session', 'POST', '/orgs/acme/projects', form({ name: 'Dup', key: 'WEB' }));
  add('session', 'POST', '/orgs/acme/issues', form({ project_id: 'WEB', title: '' }));
  add('session', 'POST', '/orgs/acme/issues', form({ title: 'Cross-site' }), { origin: 'https://evil.example' });
  add('session', 'POST', '/orgs/acme/settings/webhooks', form({ url: 'ftp://x', events: 'issue.moved' }));
  add('session', 'POST', '/orgs/acme/team/invitations', form({ role: 'king' }));
  add('session', 'POST', '/account/password', form({ current_password: 'wrong', new_password: 'short' }));
  add('anonymous', 'GET', '/orgs/acme/settings/webhooks', undefined, {}, 'viewer');
  add('anonymous', 'GET', '/orgs/acme/settings/integrations', undefined, {}, 'viewer');
  add('anonymous', 'POST', '/orgs/acme/projects', form({ name: 'Sneaky', key: 'SNK' }), {}, 'viewer');
  add('anonymous', 'POST', '/orgs/acme/issues/WEB-1/status', form({ status: 'Done' }), {}, 'viewer');
  add('anonymous', 'GET', '/orgs/acme/projects/WEB/delete', undefined, {}, 'viewer');

  // The authorization server: metadata, then every endpoint's refusals.
  add('anonymous', 'GET', '/.well-known/oauth-authorization-server');
  add('anonymous', 'GET', '/.well-known/oauth-protected-resource');
  add('anonymous', 'POST', '/oauth/register', {
    client_name: 'Corpus',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  });
  add('anonymous', 'POST', '/oauth/register', { client_name: 'No redirect' });
  add('anonymous', 'POST', '/oauth/register', { client_name: 'Plain http', redirect_uris: ['http://example.com/cb'] });
  add('anonymous', 'POST', '/oauth/register', {
    client_name: 'Odd grant',
    redirect_uris: [REDIRECT],
    grant_types: ['password'],
  });
  add('anonymous', 'POST', '/oauth/register', '{"client_name": ', { 'content-type': 'application/json' });
  const authorize = (params: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(params)}`;
  const good = {
    response_type: 'code',
    client_id: '<client>',
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state: 'xyz',
    scope: 'read',
    resource: `${ORIGIN}/api`,
  };
  add('session', 'GET', '/oauth/authorize');
  add('session', 'GET', authorize({ ...good, client_id: 'client_nope' }));
  add('session', 'GET', authorize({ ...good, redirect_uri: 'http://127.0.0.1:9999/other' }));
  add('session', 'GET', authorize({ ...good, code_challenge: '' }));
  add('session', 'GET', authorize({ ...good, code_challenge_method: 'plain' }));
  add('session', 'GET', authorize({ ...good, response_type: 'token' }));
  add('session', 'GET', authorize({ ...good, scope: 'admin' }));
  add('session', 'GET', authorize({ ...good, resource: 'https://elsewhere.example/api' }));
  add('anonymous', 'GET', authorize(good));
  add('session', 'POST', '/oauth/authorize', form({ ...good, decision: 'allow' }));
  add('session', 'POST', '/oauth/authorize', form({ ...good, decision: 'deny' }), origin);
  add('session', 'POST', '/oauth/authorize', form({ ...good, org_id: 'nope', decision: 'allow' }), origin);
  const token = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    add('anonymous', 'POST', '/oauth/token', form(fields), headers);
  token({});
  token({ grant_type: 'password', username: 'olivia', password: 'x' });
  token({
    grant_type: 'authorization_code',
    client_id: '<client>',
    code: 'nope',
    redirect_uri: REDIRECT,
    code_verifier: 'v'.repeat(43),
  });
  token({ grant_type: 'authorization_code', client_id: '<client>', redirect_uri: REDIRECT });
  token({
    grant_type: 'authorization_code',
    client_id: 'client_nope',
    code: 'nope',
    redirect_uri: REDIRECT,
    code_verifier: 'v'.repeat(43),
  });
  token({ grant_type: 'refresh_token', client_id: '<client>', refresh_token: 'rt_nope' });
  token(
    { grant_type: 'client_credentials' },
    { authorization: `Basic ${Buffer.from('client_nope:secret').toString('base64')}` },
  );
  add('anonymous', 'POST', '/oauth/token', { grant_type: 'authorization_code' });
  add('anonymous', 'GET', '/oauth/token');
  add('anonymous', 'POST', '/oauth/revoke', form({ token: 'nope', client_id: '<client>' }));
  add('anonymous', 'POST', '/oauth/revoke', form({}));
  add('anonymous', 'POST', '/oauth/introspect', form({ token: 'nope' }));
  add('owner', 'POST', '/oauth/introspect', form({ token: 'nope' }));
  add('anonymous', 'GET', '/oauth/nowhere');
  return all;
}

async function run(world: World): Promise<Recorded[]> {
  const viewer = await world.t.signIn('victor@example.com');
  const out: Recorded[] = [];
  let client = '';
  for (const step of steps()) {
    const path = step.path.replace('%3Cclient%3E', encodeURIComponent(client));
    const body =
      typeof step.body === 'string' ? step.body.replace('%3Cclient%3E', encodeURIComponent(client)) : step.body;
    const headers = step.as === 'viewer' ? { cookie: viewer, origin: ORIGIN, ...step.headers } : step.headers;
    const { parsed, recorded } = await send(world, step.caller, step.method, path, body, headers);
    out.push(
      step.as ? { ...recorded, request: recorded.request.replace(/^anonymous/, `${step.as} session`) } : recorded,
    );
    const registered = (parsed as { client_id?: string } | null)?.client_id;
    if (path === '/oauth/register' && registered) client = registered;
  }
  return out;
}

describeCorpus('pages', run);
