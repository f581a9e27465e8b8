import { z } from 'zod';
import { SEARCH_LIMIT } from '../../schema/core/search-text.js';
import { paletteSearch } from '../../schema/people/palette.js';
import { searchPeople } from '../../schema/people/person.js';
import { once } from '../inputs.js';
import { PaletteHitJson, PersonJson } from '../../schema/people/representation.js';
import { route } from '../route.js';
import { EXAMPLE } from './examples.js';

const q = once(searchPeople.input.shape.q).meta({ description: '1 to 100 characters.' });

export const searchRoutes = [
  route({
    method: 'get',
    path: '/people/search',
    operationId: 'searchPeople',
    tool: { name: 'search_people', toolsets: ['people'] },
    summary: 'Search the people of the organization',
    description:
      'By name or username (managers and above: or email); exact matches first, then prefixes, then the rest; at most 20.',
    tag: 'Search',
    operation: searchPeople,
    query: z.object({ q }),
    success: {
      status: 200,
      description: 'The people.',
      schema: z.array(PersonJson.schema).max(SEARCH_LIMIT),
      examples: { olivia: [EXAMPLE.person] },
    },
    async handle(ctx, { query }) {
      return {
        body: (await searchPeople.run(ctx, searchPeople.parse(query), undefined)).map((p) => PersonJson.present(p)),
      };
    },
  }),
  route({
    method: 'get',
    path: '/palette/search',
    operationId: 'paletteSearch',
    tool: { name: 'palette_search', toolsets: ['issues', 'projects', 'people'] },
    summary: 'Command-palette search',
    description: paletteSearch.description,
    tag: 'Search',
    operation: paletteSearch,
    query: z.object({ q }),
    success: {
      status: 200,
      description: 'The hits, best first.',
      schema: z.array(PaletteHitJson.schema).max(SEARCH_LIMIT),
      examples: { web: EXAMPLE.paletteHits },
    },
    async handle(ctx, { query }) {
      return {
        body: (await paletteSearch.run(ctx, paletteSearch.parse(query), undefined)).map((hit) =>
          PaletteHitJson.present(hit),
        ),
      };
    },
  }),
];
