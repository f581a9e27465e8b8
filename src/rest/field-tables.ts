import { z } from 'zod';
import type { Representation } from '../schema/core/representation.js';
import { CommentJson } from '../schema/comments/representation.js';
import { ApiKeyJson } from '../schema/keys/representation.js';
import { IssueJson } from '../schema/issues/representation.js';
import { OrganizationJson } from '../schema/organizations/representation.js';
import { PersonJson, UserJson } from '../schema/people/representation.js';
import { ProjectJson } from '../schema/projects/representation.js';

/** The resources whose fields docs/api.md lists (`npm run docs:tables`). */
const DOCUMENTED: Representation<never>[] = [
  IssueJson,
  CommentJson,
  ProjectJson,
  UserJson,
  ApiKeyJson,
  OrganizationJson,
  PersonJson,
] as Representation<never>[];

interface JsonSchema {
  anyOf?: JsonSchema[];
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  description?: string;
  items?: JsonSchema;
  $ref?: string;
}

function typeOf(schema: JsonSchema, defs: Record<string, JsonSchema>): string {
  if (schema.$ref) return typeOf(defs[schema.$ref.split('/').pop()!] ?? {}, defs);
  if (schema.anyOf) return schema.anyOf.map((s) => typeOf(s, defs)).join(' or ');
  if (schema.enum) return `one of ${schema.enum.map((v) => `\`${String(v)}\``).join(', ')}`;
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object']).map((t) =>
    t === 'string' && schema.format ? `string (${schema.format})` : t,
  );
  return types.join(' or ');
}

/** Markdown tables of the REST resources' fields, made from their declarations (src/schema/<domain>/representation.ts). */
export function fieldTables(): string {
  return DOCUMENTED.map((resource) => {
    const rows = Object.entries(resource.fields).map(([name, field]) => {
      const schema = z.toJSONSchema(field.schema, { unrepresentable: 'any', io: 'output' }) as JsonSchema;
      const optional = field.omitNull ? ' Left out when not shown.' : '';
      const defs = schema.$defs ?? {};
      const described =
        schema.description ?? (schema.$ref ? defs[schema.$ref.split('/').pop()!]?.description : undefined) ?? '';
      return `| \`${name}\` | ${typeOf(schema, defs)} | ${described.replace(/\|/g, '\\|')}${optional} |`;
    });
    return [`### ${resource.name}`, '', '| Field | Type | Meaning |', '|---|---|---|', ...rows].join('\n');
  }).join('\n\n');
}
