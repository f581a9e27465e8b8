import type { FieldChange } from '../../events/record.js';
import { builder } from '../core/builder.js';
import { type HistoryEntry, listIssueHistory } from './history-operations.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './operations.js';
import { connectionPage, FIELD_COST, textCost } from '../core/list-bounds.js';
import { DESCRIPTION_MAX } from './workflow.js';

const FieldChangeRef = builder.objectRef<FieldChange>('IssueFieldChange').implement({
  description:
    'One field an event changed. Values are JSON text of the field (null: none, or not there before / after).',
  fields: (t) => ({
    field: t.exposeString('field', {
      description:
        "As the Issue type names it (title, status, priority, description, assigneeId); a comment's events: commentId and body.",
    }),
    old: t.string({
      nullable: true,
      description: 'The value before; null if there was none (or the issue was created).',
      complexity: textCost(DESCRIPTION_MAX),
      resolve: (c) => (c.old === null ? null : String(c.old)),
    }),
    new: t.string({
      nullable: true,
      description: 'The value after; null if there is none (or the issue was deleted).',
      complexity: textCost(DESCRIPTION_MAX),
      resolve: (c) => (c.new === null ? null : String(c.new)),
    }),
  }),
});

const IssueEventRef = builder.objectRef<HistoryEntry>('IssueEvent').implement({
  description: 'A change of an issue: what, who, through what, when.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The event id: the webhook-id of the webhook message it sent.' }),
    type: t.exposeString('type', {
      description:
        'issue.created, issue.updated or issue.deleted; comment.created, comment.updated or comment.deleted for its comments (their changes lead with commentId).',
    }),
    actorId: t.id({ nullable: true, description: 'The user; null for the operator CLI.', resolve: (e) => e.actorId }),
    via: t.exposeString('via', { description: 'pat, oauth, session or cli.' }),
    viaId: t.id({
      nullable: true,
      description: 'The API key id (pat) or OAuth client id (oauth).',
      resolve: (e) => e.viaId,
    }),
    changes: t.field({
      type: [FieldChangeRef],
      description: 'The fields it changed, each with its value before and after.',
      // Counted as one change, each value as long as a description: that is what bounds an event's
      // text (the description is the one long field; the others add a few hundred characters).
      complexity: { field: FIELD_COST, multiplier: 1 },
      resolve: (e) => e.changes,
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the change was committed.',
      resolve: (e) => e.createdAt,
    }),
  }),
});

builder.prismaObjectField('Issue', 'history', (t) =>
  t.connection(
    {
      type: IssueEventRef,
      description: listIssueHistory.description,
      complexity: connectionPage(PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX),
      resolve: (issue, args, ctx) => listIssueHistory.call(ctx, { ...args, id: issue.id }, undefined),
    },
    { description: "A page of an issue's history, newest first." },
    { description: 'A change of the issue, with the cursor that points at it.' },
  ),
);
