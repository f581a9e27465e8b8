import { z } from 'zod';

/**
 * How REST input reaches an operation: query strings are text (`limit=20`, `status=Todo,Done`,
 * `force=true`) and bodies use the spec's snake_case. These helpers adapt the operation's own
 * field rules to that, so a limit or an allowed value is still written once.
 */

/** An id in a path: a UUID, or an issue key (shorter). Longer text names nothing (404), so the bound is documented, not checked. */
export const ID_MAX = 36;

/** The longest cursor we make (a sort value, a title at most, and an id, as base64url JSON): documented, not checked (another text is a 400 anyway). */
export const CURSOR_MAX = 4096;

/**
 * The query string as an object: a parameter given twice is an array (refused unless it is a
 * list). One pass over the parameters, so its cost is linear in their number however they
 * repeat (getAll per name would be quadratic in the number of distinct names).
 */
export function queryObject(url: URL): Record<string, string | string[]> {
  const values = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) {
    const seen = values.get(name);
    if (seen) seen.push(value);
    else values.set(name, [value]);
  }
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [name, list] of values) query[name] = list.length === 1 ? list[0]! : list;
  return query;
}

/** A parameter that may appear once. */
export function once<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (!Array.isArray(value)) return value;
    ctx.issues.push({ code: 'custom', message: 'must be given once', input: value });
    return z.NEVER;
  }, schema);
}

/** An integer parameter: digits become a number for the rule to check; anything else is refused by it. */
export function integer<T extends z.ZodType>(schema: T) {
  return once(
    z.preprocess((value) => (typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value), schema),
  );
}

/** A boolean parameter: `true` or `false`. */
export function boolean<T extends z.ZodType>(schema: T) {
  return once(z.preprocess((value) => (value === 'true' ? true : value === 'false' ? false : value), schema));
}

/** A list parameter: repeated, or comma-separated (`status=Todo,Done&status=Backlog`). */
export function list<T extends z.ZodType>(schema: T) {
  // Null stays null, for the schema to refuse: a query value is never null, and the OpenAPI
  // generator asks whether null parses to tell a nullable parameter (a list of names took `null`
  // for the name "null").
  return z.preprocess(
    (value) =>
      value === null
        ? value
        : (Array.isArray(value) ? value : [value]).flatMap((v) =>
            String(v)
              .split(',')
              .map((part) => part.trim()),
          ),
    schema,
  );
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/**
 * The JSON body of a route: the operation's input object (strict: unknown fields are refused)
 * with its fields in snake_case, less those the path gives (`id`).
 */
export function snakeBody(input: z.ZodObject, omit: string[] = []): z.ZodObject {
  const shape = Object.fromEntries(
    Object.entries(input.shape)
      .filter(([name]) => !omit.includes(name))
      .map(([name, schema]) => [snake(name), schema]),
  );
  return z.strictObject(shape);
}

/** A validated snake_case body as the operation's camelCase input. */
export function camelKeys(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).map(([key, value]) => [camel(key), value]));
}

/** A field of an operation's input as a REST client named it: `assigneeId` -> `assignee_id`, or the route's own name. */
export function restFieldName(path: string, names: Record<string, string> = {}): string {
  return Object.hasOwn(names, path) ? names[path]! : snake(path);
}
