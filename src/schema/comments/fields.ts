/**
 * The limits of a comment, written once: the operations enforce them (src/schema/comments/operations.ts),
 * the representations and the GraphQL schema document them. A module with no imports, so that
 * the representation need not load the operations.
 */

/** The longest comment body, in characters: a long review fits, and a page of comments stays bounded. */
export const COMMENT_BODY_MAX = 10_000;

/** Comments per page: the default and the most a page holds. */
export const COMMENT_PAGE_DEFAULT = 50;
export const COMMENT_PAGE_MAX = 100;
