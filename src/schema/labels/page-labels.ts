import { sql, type RawBuilder } from 'kysely';
import type { DirectSql } from '../../db/direct-sql.js';
import type { IssueLabels } from './issue-labels.js';
import { keptOrgLabels, readOrgLabels, type OrgLabels } from './org-labels.js';

/**
 * The labels of a page of issues: what its statement reads of them, and how that becomes each
 * issue's labels.
 */

/**
 * What a page of issues reads of the labels of the issue of the table aliased `alias`: the
 * version of its organization's labels (`labels_version` of the organization joined as
 * `orgAlias`), a colon, and the issue's column issues.label_ids (a copy of its issue_labels rows
 * that triggers keep) as text: `7:id,id`, `7:` for none. pageLabels turns it into labels. A
 * subquery per row as issueLabelsJson does cost a 100-issue page more than the rest of its
 * statement; a column read costs nothing, and text splits faster than the drivers parse an array.
 * The version rides in the same column so that the rows keep Prisma's shape.
 */
export function issueLabelIdsText(alias: string, orgAlias: string): RawBuilder<string> {
  return sql<string>`${sql.ref(`${orgAlias}.labels_version`)} || ':' || coalesce(array_to_string(${sql.ref(`${alias}.label_ids`)}, ','), '')`;
}

/**
 * Gives each row of a page of issues of organization `orgId` its labels, in Prisma's shape and
 * order (by name), from what its statement read (issueLabelIdsText, in the row's `labels`): from
 * the organization's labels this instance keeps when they are at the version the page read
 * (src/schema/labels/org-labels.ts), else from one more statement. The rows are changed in place
 * (a page is a hundred rows, and copying each would cost more than the rest), and rows with the
 * same labels share one array: nothing may change it.
 */
export async function pageLabels<Row extends { labels: string }>(
  db: DirectSql,
  orgId: string,
  rows: Row[],
): Promise<(Omit<Row, 'labels'> & { labels: IssueLabels })[]> {
  // A page has few distinct sets of labels: each is split and resolved once, and the rows that
  // carry it share its array. Plain loops: this runs for every row of every page.
  const sets = new Map<string, string[]>();
  let version = -1;
  let carried = false;
  for (const row of rows) {
    if (sets.has(row.labels)) continue;
    const colon = row.labels.indexOf(':');
    version = Number(row.labels.slice(0, colon));
    const ids = colon + 1 === row.labels.length ? [] : row.labels.slice(colon + 1).split(',');
    carried ||= ids.length > 0;
    sets.set(row.labels, ids);
  }
  const labelsOf = new Map<string, IssueLabels>();
  // A page without labels (or without issues) needs none of the organization's.
  let org = carried ? keptOrgLabels(orgId, version) : undefined;
  if (carried && (!org || !knowsAll(org, sets.values()))) org = await readOrgLabels(db, orgId);
  for (const [text, ids] of sets)
    labelsOf.set(text, org ? placesInOrder(ids, org.places).map((place) => org.entries[place]!) : []);
  const out = rows as unknown as { labels: string | IssueLabels }[];
  for (const row of out) row.labels = labelsOf.get(row.labels as string)!;
  return out as (Omit<Row, 'labels'> & { labels: IssueLabels })[];
}

/** Whether every id of these sets is one of the organization's labels (at the page's version, it always is). */
function knowsAll(org: OrgLabels, sets: Iterable<string[]>): boolean {
  for (const ids of sets) for (const id of ids) if (!org.places.has(id)) return false;
  return true;
}

/**
 * The places of the ids that `places` knows (a label deleted after the page's statement is
 * gone), ascending. By insertion: a row holds at most ISSUE_LABELS_MAX, and
 * Array.prototype.sort with a comparator cost more for these few than the rest of pageLabels.
 */
function placesInOrder(ids: string[], places: ReadonlyMap<string, number>): number[] {
  const sorted: number[] = [];
  for (const id of ids) {
    const place = places.get(id);
    if (place === undefined) continue;
    let at = sorted.length;
    while (at > 0 && sorted[at - 1]! > place) at--;
    sorted.splice(at, 0, place);
  }
  return sorted;
}
