import type { OrgPage } from './org-page.js';

/** Open issues (not Done, not Canceled) per project id; filled from the aggregates once they land. */
export async function openCountsByProject(_p: OrgPage): Promise<Record<string, number>> {
  return {};
}
