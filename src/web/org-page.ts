import { roleAtLeast, type Role } from '../auth/principal.js';
import type { Context } from '../context.js';
import { paletteCommands } from './commands.js';
import type { Flash } from './flash.js';
import { page, redirect } from '../views/render.js';
import { inOrg, loadShell, type ShellOrg } from '../views/shell.js';

/** A request as the page handlers get it: the path's parameters and the flash it carries. */
export type PageRequest = Request & { params?: Record<string, string>; flash?: Flash | null };

export type Shell = Awaited<ReturnType<typeof loadShell>>;

/** A page about one organization: the caller's shell, the org, and a context acting in it. */
export interface OrgPage {
  shell: Shell;
  org: ShellOrg;
  ctx: Context;
  flash: Flash | null;
  /** The org's pages live under this path. */
  base: string;
}

/** Signed out: to the sign-in page, and back here afterwards. */
export function signInFirst(request: Request): Response {
  const here = new URL(request.url);
  return redirect(`/login?next=${encodeURIComponent(here.pathname + here.search)}`);
}

/** The 404 page: what another organization's page, a missing issue and an unknown address all look like. */
export function notFoundPage(
  shell: Partial<Shell> = {},
  heading = 'Page not found',
  message = 'There is nothing at this address, or you are not allowed to see it.',
): Response {
  return page('error', { ...shell, title: 'Not found', heading, message }, { status: 404 });
}

/**
 * The organization in the path, for a signed-in member of it; anyone else gets the same 404
 * page as for an organization that does not exist (no page tells them apart).
 */
export async function orgPage(request: PageRequest, ctx: Context): Promise<OrgPage | Response> {
  if (ctx.principal.kind !== 'user') return signInFirst(request);
  const shell = await loadShell(ctx);
  const org = shell.orgs.find((o) => o.slug === request.params?.slug);
  if (!org) return notFoundPage(shell, 'Organization not found', 'It does not exist, or you are not a member of it.');
  return { shell, org, ctx: inOrg(ctx, org), flash: request.flash ?? null, base: `/orgs/${org.slug}` };
}

/**
 * The organization's sections, each with the least role that can use it: nobody is offered a tab
 * that only tells them they may not. (A section's page still answers whoever types its address.)
 */
const SECTIONS: [path: string, label: string, minimum: Role][] = [
  ['', 'Dashboard', 'viewer'],
  ['/issues', 'Issues', 'viewer'],
  ['/board', 'Board', 'viewer'],
  ['/projects', 'Projects', 'viewer'],
  ['/team', 'Team', 'viewer'],
  // Everyone reads the labels; managers and above change them there.
  ['/settings/labels', 'Labels', 'viewer'],
  ['/settings/integrations', 'API keys', 'manager'],
  ['/settings/webhooks', 'Webhooks', 'admin'],
];

/** Renders a page of an organization with its shell, navigation and flash. */
export function orgView(
  p: OrgPage,
  view: string,
  data: Record<string, unknown>,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const sections = SECTIONS.filter(([, , minimum]) => roleAtLeast(p.org.role, minimum));
  return page(
    view,
    {
      ...p.shell,
      currentOrg: p.org,
      base: p.base,
      flash: p.flash,
      sections,
      commands: paletteCommands(p.org, p.shell.orgs.length),
      ...data,
    },
    init,
  );
}
