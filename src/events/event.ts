/** An event: one change to an issue, a project or an issue's comment, as history keeps it and webhooks send it. */

export const EVENT_TYPES = [
  'issue.created',
  'issue.updated',
  'issue.deleted',
  'project.created',
  'project.updated',
  'project.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
] as const;
type EventType = (typeof EVENT_TYPES)[number];

/** Through what a change was made: an API key, an OAuth client, a browser session, the operator's CLI. */
export type Via = 'pat' | 'oauth' | 'session' | 'cli';

export type FieldValue = string | number | boolean | null;

/** One field of one change: its value before (null when created) and after (null when deleted). */
export interface FieldChange {
  field: string;
  old: FieldValue;
  new: FieldValue;
}

/** A change a write makes, as the operation describes it. */
export interface Change {
  type: EventType;
  /** The issue or project; for a comment, its issue (whose history and live updates tell of it). */
  subjectId: string;
  /** The project; for a project, itself. */
  projectId: string;
  changes: FieldChange[];
  /** The subject as the REST API shows it (after the change; before it, for a delete): the webhook payload's `data`. */
  data: Record<string, unknown>;
}

/** A recorded event: the change, who made it, through what and when. */
export interface RecordedEvent extends Change {
  id: string;
  seq: bigint;
  orgId: string;
  actorId: string | null;
  via: Via;
  viaId: string | null;
  toStatus: string | null;
  createdAt: Date;
}
