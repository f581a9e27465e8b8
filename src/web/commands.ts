import { roleAtLeast, type Role } from '../auth/principal.js';
import type { ShellOrg } from '../views/shell.js';

/**
 * The command palette's commands on an organization's pages: where to go and what to start,
 * each listed only for a role that can do it (the pages and operations check again).
 */

export interface PaletteCommand {
  label: string;
  href: string;
  /** More words the palette's filter matches, besides the label. */
  keywords: string;
}

const COMMANDS: { label: string; path: string; keywords: string; role: Role; needsOtherOrgs?: true }[] = [
  { label: 'Create issue', path: '/issues#new-issue', keywords: 'new add task bug', role: 'member' },
  { label: 'Go to dashboard', path: '', keywords: 'home charts overview', role: 'viewer' },
  { label: 'Go to issues', path: '/issues', keywords: 'list filter', role: 'viewer' },
  { label: 'Go to board', path: '/board', keywords: 'kanban columns status', role: 'viewer' },
  { label: 'Go to projects', path: '/projects', keywords: '', role: 'viewer' },
  { label: 'Create project', path: '/projects', keywords: 'new add', role: 'manager' },
  { label: 'Go to team', path: '/team', keywords: 'members people', role: 'viewer' },
  { label: 'Invite people', path: '/team', keywords: 'invitation member code', role: 'admin' },
  { label: 'API keys', path: '/settings/integrations', keywords: 'token integrations pat', role: 'manager' },
  { label: 'Webhooks', path: '/settings/webhooks', keywords: 'endpoints events integrations', role: 'admin' },
  { label: 'Switch organization', path: '/', keywords: 'org change', role: 'viewer', needsOtherOrgs: true },
];

export function paletteCommands(org: ShellOrg, orgCount: number): PaletteCommand[] {
  return COMMANDS.filter((c) => roleAtLeast(org.role, c.role) && (!c.needsOtherOrgs || orgCount > 1)).map((c) => ({
    label: c.label,
    href: c.path === '/' ? '/' : `/orgs/${org.slug}${c.path}`,
    keywords: c.keywords,
  }));
}
