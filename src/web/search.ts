import type { Context } from '../context.js';
import { paletteSearch } from '../schema/people/palette.js';
import { formFailure } from './forms.js';
import { orgPage, orgView, type PageRequest } from './org-page.js';
import { Response } from '../http/fetch-api.js';

/**
 * GET /orgs/:slug/search?q=: the command palette's search as a page, for a browser without
 * JavaScript (the palette itself, Ctrl+K, calls GET /api/palette/search from src/web/assets/app.js).
 */
export async function showSearch(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const q = new URL(request.url).searchParams.get('q') ?? '';
  let hits: Awaited<ReturnType<typeof paletteSearch.run>> = [];
  let error: string | null = null;
  let status = 200;
  if (q) {
    try {
      hits = await paletteSearch.call(p.ctx, { q }, undefined);
    } catch (e) {
      const failure = formFailure(e);
      error = failure.formError ?? Object.values(failure.errors).join(' ');
      status = failure.status;
    }
  }
  return orgView(p, 'search', { title: `Search · ${p.org.name}`, q, hits, error }, { status });
}
