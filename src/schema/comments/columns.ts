import type { DB } from '../../generated/kysely/types.js';
import type { Comment } from '../../generated/prisma/client.js';
import { type ColumnDeclaration, fieldsOf, loadedColumnsOf } from '../core/column-declaration.js';
import { EX } from '../core/example-values.js';
import { notNull } from '../core/messages.js';
import { text, time, uuid } from '../core/representation.js';
import { storableString } from '../core/text.js';
import { COMMENT_BODY_MAX } from './fields.js';

/**
 * The columns of the comments table, each declared once (src/schema/core/column-declaration.ts):
 * the Comment object's base selection and plain fields (src/schema/comments/comment.ts), the REST
 * JSON and its OpenAPI schema, which webhooks send as `data` and pages show
 * (src/schema/comments/representation.ts), and the inputs of createComment and updateComment
 * (src/schema/comments/operations.ts). Checked against the Prisma model and the generated table
 * type: a column without an entry here, or an entry naming no SQL column, does not compile.
 */

type CommentColumnDeclaration = ColumnDeclaration<keyof DB['comments'] & string, 'uuid' | 'text' | 'time'>;

const bodyRule = storableString(notNull('must be a string'))
  .trim()
  .min(1, 'must not be empty')
  .max(COMMENT_BODY_MAX, `must be at most ${COMMENT_BODY_MAX} characters`);

// In the order the representations list them. A comment is small: every shown column comes with every row.
export const COMMENT_TABLE = {
  id: {
    column: 'id',
    kind: 'uuid',
    nullable: false,
    loaded: true,
    json: { name: 'id', schema: uuid('The comment id.'), example: EX.commentId },
    graphql: { description: 'The comment id.' },
  },
  orgId: { column: 'org_id', kind: 'uuid', nullable: false, loaded: false },
  issueId: {
    column: 'issue_id',
    kind: 'uuid',
    nullable: false,
    loaded: true,
    json: { name: 'issue_id', schema: uuid('The issue it is on.'), example: EX.issueId },
    graphql: { description: 'The issue it is on.' },
  },
  authorId: {
    column: 'author_id',
    kind: 'uuid',
    nullable: true,
    loaded: true,
    json: {
      name: 'author_id',
      schema: uuid("The author's user id; null when the operator wrote it or the account is gone.").nullable(),
      example: EX.userId,
    },
    graphql: { description: "The author's user id; null when the operator wrote it or the account is gone." },
  },
  body: {
    column: 'body',
    kind: 'text',
    nullable: false,
    loaded: true,
    json: {
      name: 'body',
      schema: text(COMMENT_BODY_MAX, `Markdown, 1 to ${COMMENT_BODY_MAX} characters; pages render it with HTML off.`),
      example: 'Reproduced on **Firefox** too; see https://example.com/trace.',
    },
    graphql: {
      description: `Markdown, 1 to ${COMMENT_BODY_MAX} characters (raw HTML is shown as text on pages).`,
      textCost: COMMENT_BODY_MAX,
    },
    write: {
      rule: bodyRule,
      create: { required: true, description: `Markdown, 1 to ${COMMENT_BODY_MAX} characters.` },
      update: { description: `The new text: Markdown, 1 to ${COMMENT_BODY_MAX} characters.` },
    },
  },
  createdAt: {
    column: 'created_at',
    kind: 'time',
    nullable: false,
    loaded: true,
    json: { name: 'created_at', schema: time('Creation time (ISO 8601, UTC).'), example: EX.created },
    graphql: { description: 'When it was written.' },
  },
  updatedAt: {
    column: 'updated_at',
    kind: 'time',
    nullable: false,
    loaded: true,
    json: {
      name: 'updated_at',
      schema: time('Last edit (ISO 8601, UTC); its creation time if never edited.'),
      example: EX.updated,
    },
    graphql: { description: 'When it was last edited (its creation time if never).' },
  },
} as const satisfies { [Field in keyof Comment]: CommentColumnDeclaration };

/** The comment fields in declaration order. */
export const COMMENT_FIELD_NAMES = fieldsOf(COMMENT_TABLE);

/** The columns every Comment row is loaded with, as a Prisma selection. */
export const COMMENT_COLUMNS = loadedColumnsOf(COMMENT_TABLE);
