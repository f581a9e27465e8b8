import type { FieldChange } from '../events/record.js';
import { AppError, ValidationError } from '../schema/core/errors.js';
import { listIssueHistory, type HistoryEntry } from '../schema/issues/history-operations.js';
import { pageFieldOf } from './issue-fields.js';
import type { OrgPage } from './org-page.js';

/**
 * The issue page's activity feed: the issue's history (the API's listIssueHistory, as the REST
 * and GraphQL surfaces show it), newest first, a page at a time, told for people: who changed
 * which field from what to what, through what, when.
 */

/** Entries per page: an event holds up to two descriptions, so a page of them is bounded by this. */
export const ACTIVITY_PAGE = 20;

/** One field's change as a sentence shows it; values are already names (an assignee's, "nobody"). */
interface ActivityChange {
  /** The field as the sentence names it: its page label, in lower case. */
  field: string;
  /** The heading is renamed; long text is edited (the feed does not quote it); the rest change from a value to another. */
  how: 'renamed' | 'edited' | 'changed';
  from: string | null;
  to: string | null;
}

interface ActivityEntry {
  id: string;
  type: string;
  /** Who made it: a member's name, "A former member", or "The operator" (the CLI). */
  actor: string;
  /** Through what, when not this web app: "with an API key", "through an authorized application", null. */
  via: string | null;
  at: string;
  changes: ActivityChange[];
}

export interface Activity {
  entries: ActivityEntry[];
  /** The cursor of the next (older) page, if there is one. */
  older: string | null;
  /** Why the page could not be read (say, an older-page link that is not valid). */
  error: string | null;
}

const VIA: Record<string, string | null> = {
  pat: 'with an API key',
  oauth: 'through an authorized application',
  session: null,
  cli: null,
};

function describe(change: FieldChange, names: Record<string, string>): ActivityChange {
  const shown = pageFieldOf(change.field);
  const field = shown?.label.toLowerCase() ?? change.field;
  // A description can be 50,000 characters: the feed says that it changed, not what it says.
  if (shown?.control === 'markdown') return { field, how: 'edited', from: null, to: null };
  const value = (v: FieldChange['old']) => {
    if (shown?.control === 'person') return v === null ? 'nobody' : (names[String(v)] ?? 'a former member');
    return v === null ? 'none' : String(v);
  };
  const how = shown?.place === 'heading' ? 'renamed' : 'changed';
  return { field, how, from: value(change.old), to: value(change.new) };
}

function toActivityEntry(entry: HistoryEntry, names: Record<string, string>): ActivityEntry {
  return {
    id: entry.id,
    type: entry.type,
    actor: entry.actorId === null ? 'The operator' : (names[entry.actorId] ?? 'A former member'),
    via: VIA[entry.via] ?? null,
    at: entry.createdAt.toISOString(),
    // A create lists every field it set; the feed says "created the issue" and the page shows them.
    changes: entry.type === 'issue.updated' ? entry.changes.map((c) => describe(c, names)) : [],
  };
}

/** One page of the issue's activity, older than `after` (a cursor of a previous page) when given. */
export async function issueActivity(
  p: OrgPage,
  issueId: string,
  names: Record<string, string>,
  after: string | null,
): Promise<Activity> {
  try {
    const page = await listIssueHistory.call(p.ctx, { id: issueId, first: ACTIVITY_PAGE, after }, undefined);
    return {
      entries: page.edges.map((edge) => toActivityEntry(edge!.node, names)),
      older: page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? null) : null,
      error: null,
    };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const message = error instanceof ValidationError ? 'This link to older activity is not valid.' : error.message;
    return { entries: [], older: null, error: message };
  }
}
