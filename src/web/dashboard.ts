import type { Context } from '../context.js';
import { orgPage, type PageRequest } from './org-page.js';
import { redirect } from './render.js';

/** GET /orgs/:slug: the organization's dashboard (the default page after sign-in). */
export async function showDashboard(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  return redirect(`${p.base}/issues`);
}
