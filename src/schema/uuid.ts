import { z } from 'zod';

export const uuid = z.uuid({ error: 'must be a UUID' });

/** Ids are UUIDs in the database; anything else names nothing, and must not reach a query. */
export function isUuid(value: string): boolean {
  return uuid.safeParse(value).success;
}
