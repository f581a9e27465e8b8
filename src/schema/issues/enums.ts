import { builder } from '../core/builder.js';
import {
  ISSUE_PRIORITIES,
  ISSUE_STATUSES,
  PRIORITY_MEANINGS,
  STATUS_MEANINGS,
  type IssuePriority,
  type IssueStatus,
} from './workflow.js';

/** `In Progress` -> `IN_PROGRESS`: GraphQL enum values are names. */
export const enumValueName = (value: string) => value.toUpperCase().replace(/ /g, '_');

/**
 * Status and priority as GraphQL enums: clients get autocompletion and validation. The values
 * the resolvers and the database see stay the spec's strings (`In Progress`, `high`), which the
 * REST surface shows as they are.
 */
export const IssueStatusEnum = builder.enumType('IssueStatus', {
  description: 'Where an issue stands in the workflow, in workflow order.',
  values: Object.fromEntries(
    ISSUE_STATUSES.map((status) => [
      enumValueName(status),
      { value: status, description: `${STATUS_MEANINGS[status]} REST: "${status}".` },
    ]),
  ) as Record<string, { value: IssueStatus; description: string }>,
});

export const IssuePriorityEnum = builder.enumType('IssuePriority', {
  description: 'How urgent an issue is, most urgent first.',
  values: Object.fromEntries(
    ISSUE_PRIORITIES.map((priority) => [
      enumValueName(priority),
      { value: priority, description: `${PRIORITY_MEANINGS[priority]} REST: "${priority}".` },
    ]),
  ) as Record<string, { value: IssuePriority; description: string }>,
});
