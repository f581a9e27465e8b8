import type { ParameterObject, SchemaObject } from 'openapi3-ts/oas31';
import { testConfig } from '../config.js';
import { openApiDocument } from './openapi.js';
import { ROUTES } from './routes/index.js';

/**
 * docs/api.md's table of `GET /api/issues`' query parameters, as the OpenAPI document gives them:
 * the route's own (project, sort, direction, limit, cursor) and the filter's, which come from the
 * one filter declaration (src/schema/issues/filter.ts, through src/rest/issue-filter-parameters.ts).
 */

const code = (value: unknown) => `\`${String(value)}\``;

/** What a parameter's schema accepts, in words. */
function accepts(schema: SchemaObject): string {
  if (schema.enum) return `one of ${schema.enum.map(code).join(', ')}`;
  if (schema.type === 'array') {
    const most = schema.maxItems === undefined ? '' : ` (at most ${schema.maxItems})`;
    return `a list${most}, each ${accepts((schema.items ?? {}) as SchemaObject)}`;
  }
  if (schema.type === 'integer') return `an integer from ${schema.minimum} to ${schema.maximum}`;
  if (schema.format) return `a ${schema.format}`;
  if (schema.minLength !== undefined) return `text of ${schema.minLength} to ${schema.maxLength} characters`;
  return `text of at most ${schema.maxLength} characters`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function issueListParameterTable(): string {
  const listIssues = openApiDocument(testConfig(), ROUTES).paths?.['/issues']?.get;
  const query = (listIssues?.parameters ?? []).filter((p): p is ParameterObject => 'in' in p && p.in === 'query');
  if (!query.length) throw new Error('The OpenAPI document has no query parameters for GET /issues');
  const rows = query.map(
    (p) => `| ${code(p.name)} | ${cell(accepts(p.schema as SchemaObject))} | ${cell(p.description ?? '')} |`,
  );
  return ['| Parameter | Takes | Meaning |', '|---|---|---|', ...rows].join('\n');
}
