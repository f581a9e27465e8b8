/**
 * The limits of a project's fields, written once: the operations enforce them
 * (src/schema/projects/operations.ts) and the API's representations document them (src/schema/*-representation.ts).
 * A module of their own, with no imports, so the representations need not load the operations
 * (which record events in the REST representation: a cycle).
 */
export const PROJECT_NAME_MAX = 100;
export const PROJECT_KEY_PATTERN = /^[A-Z][A-Z0-9]{1,9}$/;
export const PROJECT_KEY_MAX = 10;
