import { z } from 'zod';
import { storableString } from '../core/text.js';

/**
 * The limits of a user's fields, written once: the admin and seed commands refuse a user over
 * them (src/cli/operations.ts), and the API's representations document them (src/schema/*-representation.ts).
 */
export const USER_NAME_MAX = 100;
export const USERNAME_MAX = 40;
/** RFC 5321 §4.5.3.1.3: a path holds at most 256 octets, so an address at most 254 characters. */
export const EMAIL_MAX = 254;
/** RFC 5646 §4.4.1: implementations need hold no language tag longer than 35 characters. */
export const LOCALE_MAX = 35;

/** Every field is also text PostgreSQL can store (src/schema/core/text.ts). */
export const UserFields = z.object({
  // Storable text first: a NUL is reported as what it is, not as a malformed address.
  email: storableString().max(EMAIL_MAX).pipe(z.email()),
  name: storableString().min(1).max(USER_NAME_MAX),
  username: storableString().min(1).max(USERNAME_MAX),
  locale: storableString().min(2).max(LOCALE_MAX),
});
