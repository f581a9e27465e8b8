import type { DirectSql } from '../../db/direct-sql.js';
import { builder, prepared, rowsOf } from '../../db/sql-builder.js';
import type { IssueLabels } from './issue-labels.js';

/**
 * The labels of organizations as this instance last read them, for pages of issues: a page's
 * statement reads its organization's `labels_version` (which triggers on labels bump in every
 * transaction that writes one, migration 20261127220000_labels_version) in the same snapshot as
 * its issues' label ids, and when the version is the one kept here the page needs no second
 * statement. Every instance checks against the database, so a label renamed through another
 * instance shows on the next page everywhere. A second statement per page cost about 80 µs of the
 * service's CPU and a round trip (npm run bench:quick -- rest_read); organizations change their
 * labels rarely and read them on every page.
 */

/**
 * An organization's labels at a version: their entries (Prisma's shape of the relation) in the
 * order of names, and each one's place in that order by its id. Every page that reads them
 * shares them: nothing may change them.
 */
export interface OrgLabels {
  version: number;
  entries: IssueLabels;
  places: ReadonlyMap<string, number>;
}

/**
 * Organizations' labels kept in memory, at most `max` labels over all of them (an organization
 * holds at most LABELS_PER_ORG_MAX); the organization read longest ago goes first.
 */
export class KeptOrgLabels {
  private readonly byOrg = new Map<string, OrgLabels>();
  private labels = 0;

  constructor(private readonly max: number) {}

  /** The labels of `orgId` when the kept ones are at `version`, else none. A hit makes the organization the most recently read. */
  get(orgId: string, version: number): OrgLabels | undefined {
    const hit = this.byOrg.get(orgId);
    if (hit?.version !== version) return undefined;
    this.byOrg.delete(orgId);
    this.byOrg.set(orgId, hit);
    return hit;
  }

  set(orgId: string, labels: OrgLabels): void {
    this.drop(orgId);
    this.byOrg.set(orgId, labels);
    this.labels += labels.entries.length;
    for (const oldest of this.byOrg.keys()) {
      if (this.labels <= this.max || oldest === orgId) break;
      this.drop(oldest);
    }
  }

  /** How many organizations and labels are kept. */
  get size(): { organizations: number; labels: number } {
    return { organizations: this.byOrg.size, labels: this.labels };
  }

  private drop(orgId: string): void {
    const dropped = this.byOrg.get(orgId);
    if (!dropped) return;
    this.byOrg.delete(orgId);
    this.labels -= dropped.entries.length;
  }
}

/** This instance's: about 4 MB at most. */
const kept = new KeptOrgLabels(20_000);

/** The labels of `orgId` this instance keeps, when they are at `version`. */
export const keptOrgLabels = (orgId: string, version: number) => kept.get(orgId, version);

/** Every label of the organization by name, and the version they are at, in one snapshot (no label: one row of nulls). */
const orgLabelsStatement = prepared(
  (orgId: string) =>
    builder
      .selectFrom('organizations as o')
      .leftJoin('labels as l', 'l.org_id', 'o.id')
      .select(['o.labels_version as version', 'l.id', 'l.name', 'l.color'])
      .where('o.id', '=', orgId)
      .orderBy('l.name_key'),
  1,
);

/** Its text, for the raw baseline of the benchmarks (bench/lib/baseline-sql.ts). $1 = org. */
export const ORG_LABELS_SQL = orgLabelsStatement.text;

/** Reads the organization's labels and keeps them. */
export async function readOrgLabels(db: DirectSql, orgId: string): Promise<OrgLabels> {
  const rows = await rowsOf(db, orgLabelsStatement.with(orgId));
  const entries: IssueLabels = [];
  for (const { id, name, color } of rows) if (id !== null) entries.push({ label: { id, name: name!, color: color! } });
  const labels: OrgLabels = {
    version: rows[0]?.version ?? -1,
    entries,
    places: new Map(entries.map((entry, place) => [entry.label.id, place])),
  };
  // An organization deleted meanwhile has no row: nothing to keep.
  if (rows.length) kept.set(orgId, labels);
  return labels;
}
