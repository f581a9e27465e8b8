/**
 * The issue workflow every organization starts with. The spec shows Backlog, In Progress,
 * high and medium and leaves the full sets open; these are the documented defaults.
 * Values are case-sensitive, exactly as written here.
 */
export const ISSUE_STATUSES = ['Backlog', 'Todo', 'In Progress', 'In Review', 'Done', 'Canceled'] as const;
export const ISSUE_PRIORITIES = ['urgent', 'high', 'medium', 'low', 'none'] as const;

export const DEFAULT_STATUS: (typeof ISSUE_STATUSES)[number] = 'Backlog';
export const DEFAULT_PRIORITY: (typeof ISSUE_PRIORITIES)[number] = 'none';

export const TITLE_MAX = 255;
export const DESCRIPTION_MAX = 50_000;

export type IssueStatus = (typeof ISSUE_STATUSES)[number];
export type IssuePriority = (typeof ISSUE_PRIORITIES)[number];

/** What each status means, for people (the GraphQL enum's value descriptions). */
export const STATUS_MEANINGS: Record<IssueStatus, string> = {
  Backlog: 'Recorded, not planned yet.',
  Todo: 'Planned, not started.',
  'In Progress': 'Being worked on.',
  'In Review': 'Done by its assignee, waiting for review.',
  Done: 'Completed.',
  Canceled: 'Closed without being done.',
};

export const PRIORITY_MEANINGS: Record<IssuePriority, string> = {
  urgent: 'Drop everything else.',
  high: 'Next in line.',
  medium: 'Planned in the usual course.',
  low: 'When there is time.',
  none: 'Not prioritised yet.',
};
