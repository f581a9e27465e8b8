import { problems } from './problem.js';

/**
 * One query parameter. `int` turns digit strings into numbers and `boolean` turns true and
 * false into booleans, so that the operation's Int and Boolean variables can check them;
 * anything else is passed on for the schema to refuse.
 */
export function queryValue(url: URL, name: string, kind: 'string' | 'int' | 'boolean' = 'string'): string | number | boolean | undefined {
  const values = url.searchParams.getAll(name);
  if (values.length > 1) throw problems.validation([{ field: name, message: 'must be given once' }]);
  const value = values[0];
  if (value === undefined) return undefined;
  if (kind === 'int' && /^-?\d{1,15}$/.test(value)) return Number(value);
  if (kind === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** A parameter that may repeat or hold a comma-separated list: `status=Todo,Done&status=Backlog`. */
export function queryList(url: URL, name: string): string[] | undefined {
  const values = url.searchParams.getAll(name).flatMap((value) => value.split(',').map((v) => v.trim()));
  return values.length ? values : undefined;
}

/** An enum value as REST spells it (`created_at`) to the GraphQL enum value (`CREATED_AT`). */
export function enumValue(value: unknown): unknown {
  return typeof value === 'string' ? value.toUpperCase() : value;
}

/** Drops the undefined entries; undefined when none is left. */
export function defined<T extends Record<string, unknown>>(values: T): Partial<T> | undefined {
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  return entries.length ? (Object.fromEntries(entries) as Partial<T>) : undefined;
}

/** A path segment such as `:id`, percent-decoded; one that does not decode names nothing here. */
export function pathParam(params: Record<string, string | undefined>, name: string): string {
  try {
    return decodeURIComponent(params[name] ?? '');
  } catch {
    throw problems.notFound();
  }
}

/** `{ project_id: 1 }` -> `{ projectId: 1 }`: REST bodies use the spec's snake_case, GraphQL inputs camelCase. */
export function snakeToCamelKeys(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => [key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()), value]),
  );
}
