import { builder } from '../core/builder.js';
import { columnFields, inputFields } from '../core/column-graphql.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../core/errors.js';
import { connectionPage } from '../core/list-bounds.js';
import { outcome } from '../core/outcome.js';
import { COMMENT_COLUMNS, COMMENT_FIELD_NAMES, COMMENT_TABLE } from './columns.js';
import { COMMENT_PAGE_DEFAULT, COMMENT_PAGE_MAX } from './fields.js';
import * as ops from './operations.js';

const CommentRef = builder.prismaObject('Comment', {
  description: 'A comment on an issue: Markdown text, its author and times.',
  select: COMMENT_COLUMNS,
  fields: (t) => ({
    ...columnFields(t, COMMENT_TABLE, COMMENT_FIELD_NAMES),
    author: t.relation('author', {
      nullable: true,
      description: 'Who wrote it; null when the operator did, or the account is gone.',
    }),
    issue: t.relation('issue', { description: 'The issue it is on.' }),
  }),
});

builder.prismaObjectField('Issue', 'comments', (t) =>
  t.connection(
    {
      type: CommentRef,
      description: ops.listComments.description,
      complexity: connectionPage(COMMENT_PAGE_DEFAULT, COMMENT_PAGE_MAX),
      resolve: (issue, args, ctx) => ops.listComments.call(ctx, { ...args, id: issue.id }, undefined),
    },
    { description: "A page of an issue's comments, oldest first." },
    { description: 'A comment, with the cursor that points at it.' },
  ),
);

const CreateCommentInput = builder.inputType('CreateCommentInput', {
  description: 'A new comment: its text.',
  fields: (t) => inputFields(t, COMMENT_TABLE, 'create'),
});

const UpdateCommentInput = builder.inputType('UpdateCommentInput', {
  description: 'The new text of a comment.',
  fields: (t) => inputFields(t, COMMENT_TABLE, 'update'),
});

builder.mutationField('createComment', (t) =>
  t.field({
    type: CommentRef,
    description: ops.createComment.description,
    errors: outcome('createComment', 'The comment written.', [ValidationError, NotFoundError]),
    args: {
      issueId: t.arg.id({ required: true, description: 'The issue: its id or key (WEB-12, any case).' }),
      input: t.arg({ type: CreateCommentInput, required: true, description: 'Its text.' }),
    },
    resolve: (_root, args, ctx) => ops.createComment.call(ctx, { ...args.input, id: args.issueId }, undefined),
  }),
);

builder.mutationField('updateComment', (t) =>
  t.field({
    type: CommentRef,
    description: ops.updateComment.description,
    errors: outcome('updateComment', 'The comment as edited.', [ValidationError, NotFoundError, ForbiddenError]),
    args: {
      id: t.arg.id({ required: true, description: 'The comment id.' }),
      input: t.arg({ type: UpdateCommentInput, required: true, description: 'Its new text.' }),
    },
    resolve: (_root, args, ctx) => ops.updateComment.call(ctx, { ...args.input, commentId: args.id }, undefined),
  }),
);

builder.mutationField('deleteComment', (t) =>
  t.field({
    type: 'ID',
    description: ops.deleteComment.description,
    errors: outcome('deleteComment', 'The id of the deleted comment.', [NotFoundError, ForbiddenError]),
    args: { id: t.arg.id({ required: true, description: 'The comment id.' }) },
    resolve: (_root, args, ctx) => ops.deleteComment.call(ctx, { commentId: args.id }, undefined),
  }),
);
