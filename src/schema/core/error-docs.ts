import { STATUS_CODES } from 'node:http';
import { ERROR_TABLE, type SurfaceOfError } from './error-table.js';

/** The tables of docs/api.md "Errors", one per surface, made from ERROR_TABLE (`npm run docs:tables`). */
const SECTIONS: { surface: SurfaceOfError; heading: string; spell: (code: string) => string }[] = [
  {
    surface: 'problem',
    heading: 'Problem codes (REST, and GraphQL operations in upper case)',
    spell: (code) => code.toLowerCase(),
  },
  { surface: 'graphql', heading: 'GraphQL only (`extensions.code`)', spell: (code) => code },
  { surface: 'mcp', heading: 'MCP batches (JSON-RPC error `data.code`)', spell: (code) => code.toLowerCase() },
  { surface: 'oauth', heading: 'OAuth endpoints (RFC 6749 `error`)', spell: (code) => code },
];

const status = (code: number) => (code === 200 ? '200 (in the result)' : `${code} ${STATUS_CODES[code] ?? ''}`.trim());

export function errorTables(): string {
  return SECTIONS.map(({ surface, heading, spell }) => {
    const rows = Object.entries(ERROR_TABLE)
      .filter(([, entry]) => entry.surface === surface)
      .map(([code, entry]) => `| ${status(entry.status)} | \`${spell(code)}\` | ${entry.when.replace(/\|/g, '\\|')} |`);
    return [`#### ${heading}`, '', '| Status | Code | When |', '|---|---|---|', ...rows].join('\n');
  }).join('\n\n');
}
