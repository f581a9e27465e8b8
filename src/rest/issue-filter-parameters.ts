import { ISSUE_FILTER_PARAMETERS, type IssueFilterShape } from '../schema/issues/filter.js';
import { list, once } from './inputs.js';

/**
 * The issue filter's entries that the REST list offers (src/schema/issues/filter.ts), as its query
 * parameters: each checked by its entry's rule, a list (repeated or comma-separated) or given once.
 */
export const issueFilterParameters = Object.fromEntries(
  ISSUE_FILTER_PARAMETERS.map((p) => [
    p.name,
    (p.list ? list(p.rule) : once(p.rule)).optional().meta({ description: p.description }),
  ]),
);

/** The operation's names of the filter's fields as the parameters name them (`filter.assigneeId` -> `assignee_id`), for field errors. */
export const issueFilterNames = Object.fromEntries(ISSUE_FILTER_PARAMETERS.map((p) => [`filter.${p.field}`, p.name]));

/** The filter the validated parameters ask for, or undefined when they ask for none. */
export function issueFilterOf(query: Record<string, unknown>): IssueFilterShape | undefined {
  const given = ISSUE_FILTER_PARAMETERS.filter((p) => query[p.name] !== undefined);
  return given.length ? Object.fromEntries(given.map((p) => [p.field, query[p.name]])) : undefined;
}
