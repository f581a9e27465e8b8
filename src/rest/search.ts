import type { Context } from '../context.js';
import { json } from './json.js';
import { defineOperation, runOperation } from './operation.js';
import { queryValue } from './params.js';

const SEARCH_PEOPLE = defineOperation(/* GraphQL */ `
  query SearchPeople($q: String!) { searchPeople(q: $q) { id name username role email } }
`);

const PALETTE_SEARCH = defineOperation(/* GraphQL */ `
  query PaletteSearch($q: String!) { paletteSearch(q: $q) { type id title key projectId username } }
`);

interface Person {
  id: string;
  name: string;
  username: string;
  role: string;
  email: string | null;
}

interface PaletteHit {
  type: string;
  id: string;
  title: string;
  key: string | null;
  projectId: string | null;
  username: string | null;
}

/** GET /api/people/search?q= : a bare array; `email` only for callers allowed to see it. */
export async function searchPeople(request: Request, ctx: Context): Promise<Response> {
  const { searchPeople } = await runOperation<{ searchPeople: Person[] }>(SEARCH_PEOPLE, ctx, { q: queryValue(new URL(request.url), 'q') });
  return json(
    searchPeople.map(({ email, ...person }) => ({ ...person, ...(email === null ? {} : { email }) })),
  );
}

/** GET /api/palette/search?q= : a bare array of hits, best first; each carries only the fields of its type. */
export async function paletteSearch(request: Request, ctx: Context): Promise<Response> {
  const { paletteSearch } = await runOperation<{ paletteSearch: PaletteHit[] }>(PALETTE_SEARCH, ctx, {
    q: queryValue(new URL(request.url), 'q'),
  });
  return json(
    paletteSearch.map((hit) => ({
      type: hit.type.toLowerCase(),
      id: hit.id,
      title: hit.title,
      ...(hit.key === null ? {} : { key: hit.key }),
      ...(hit.projectId === null ? {} : { project_id: hit.projectId }),
      ...(hit.username === null ? {} : { username: hit.username }),
    })),
  );
}
