import { z } from 'zod';
import { notNull } from './messages.js';

export const uuid = z.uuid(notNull('must be a UUID'));

/** Ids are UUIDs in the database; anything else names nothing, and must not reach a query. */
export function isUuid(value: string): boolean {
  return uuid.safeParse(value).success;
}
