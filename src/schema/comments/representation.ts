import type { Comment } from '../../generated/prisma/client.js';
import { jsonExampleOf, jsonFieldsOf, type JsonShape } from '../core/column-json.js';
import { representation } from '../core/representation.js';
import { COMMENT_TABLE } from './columns.js';

/**
 * A comment as REST answers it, webhooks send it (`data` of comment.* events) and pages show it:
 * the fields of the column declaration that have a `json` entry (src/schema/comments/columns.ts).
 */
export type CommentJsonShape = JsonShape<typeof COMMENT_TABLE>;

export const CommentJson = representation<Comment>(
  'Comment',
  'A comment on an issue.',
  jsonFieldsOf<Comment>(COMMENT_TABLE),
);

/** The example comment of the API reference, from the declared examples. */
export const COMMENT_EXAMPLE = jsonExampleOf(COMMENT_TABLE) as CommentJsonShape;
