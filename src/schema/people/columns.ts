import { z } from 'zod';
import type { DB } from '../../generated/kysely/types.js';
import type { User } from '../../generated/prisma/client.js';
import { type ColumnDeclaration, fieldsOf, loadedColumnsOf } from '../core/column-declaration.js';
import { EX } from '../core/example-values.js';
import { notNull } from '../core/messages.js';
import { text, uuid } from '../core/representation.js';
import { storableString } from '../core/text.js';
import { EMAIL_MAX, LOCALE_MAX, USER_NAME_MAX, USERNAME_MAX } from './fields.js';

/**
 * The columns of the users table, each declared once (src/schema/core/column-declaration.ts).
 * Every list of user columns comes from here: the User object's base selection (`USER_COLUMNS`)
 * and fields (src/schema/people/user.ts), the REST JSON of the signed-in user and its OpenAPI
 * schema (src/schema/people/representation.ts), the select list of `me`'s statement, and the
 * fields a person gives for a new account and changes on their own (src/schema/people/account.ts).
 * The declaration is checked against the Prisma model and the generated table type: a column of
 * the model without an entry here, or an entry naming no SQL column, does not compile.
 */

/** A user column's declaration: a column of the users table. */
type UserColumnDeclaration = ColumnDeclaration<keyof DB['users'] & string, 'uuid' | 'text' | 'time'>;

// In the order the representations list them. Only the small public columns come with every
// row; the email only when a query asks for it (and GraphQL shows it by a rule); never the
// password hash, which nothing shows.
export const USER_TABLE = {
  id: {
    column: 'id',
    kind: 'uuid',
    nullable: false,
    loaded: true,
    json: { name: 'id', schema: uuid('The user id.'), example: EX.userId },
    graphql: { description: 'The user id (what assigneeId holds).' },
  },
  email: {
    column: 'email',
    kind: 'text',
    nullable: false,
    loaded: false,
    json: {
      name: 'email',
      schema: z.email().max(EMAIL_MAX).meta({ description: 'Sign-in address, lowercase.' }),
      example: 'olivia@example.com',
    },
    graphql: {
      description: "Your own, always; other people's only for managers, admins and owners (null otherwise).",
      textCost: EMAIL_MAX,
      restricted: true,
    },
    write: {
      rule: z
        .string(notNull('must be a string'))
        .trim()
        .toLowerCase()
        .pipe(z.email('must be an email address').max(EMAIL_MAX, `must be at most ${EMAIL_MAX} characters`)),
      create: { required: true },
    },
  },
  name: {
    column: 'name',
    kind: 'text',
    nullable: false,
    loaded: true,
    json: { name: 'name', schema: text(USER_NAME_MAX, 'Display name.'), example: 'Olivia Owner' },
    graphql: { description: 'The name they go by.' },
    write: {
      rule: storableString(notNull('must be a string'))
        .trim()
        .min(1, 'must not be empty')
        .max(USER_NAME_MAX, `must be at most ${USER_NAME_MAX} characters`),
      create: { required: true },
      update: {},
    },
  },
  username: {
    column: 'username',
    kind: 'text',
    nullable: false,
    loaded: true,
    json: { name: 'username', schema: text(USERNAME_MAX, 'Unique handle.'), example: 'olivia' },
    graphql: { description: 'Their unique handle.' },
    write: {
      rule: z
        .string(notNull('must be a string'))
        .trim()
        .regex(
          /^[a-zA-Z0-9][a-zA-Z0-9_.-]{1,38}$/,
          'must be 2-39 letters, digits, dots, dashes or underscores, starting with a letter or digit',
        ),
      create: { required: true },
    },
  },
  locale: {
    column: 'locale',
    kind: 'text',
    nullable: false,
    loaded: true,
    json: { name: 'locale', schema: text(LOCALE_MAX, 'Language code, e.g. `en`.'), example: 'en' },
    graphql: { description: 'Language code, e.g. en.' },
  },
  passwordHash: { column: 'password_hash', kind: 'text', nullable: true, loaded: false },
  createdAt: { column: 'created_at', kind: 'time', nullable: false, loaded: false },
  updatedAt: { column: 'updated_at', kind: 'time', nullable: false, loaded: false },
} as const satisfies { [Field in keyof User]: UserColumnDeclaration };

/** The user fields in declaration order. */
export const USER_FIELD_NAMES = fieldsOf(USER_TABLE);

/**
 * The columns every User row is loaded with (the User object's base selection): the small public
 * ones, which the object resolves as plain fields. Never the password hash; the email only when
 * a query asks for it.
 */
export const USER_COLUMNS = loadedColumnsOf(USER_TABLE);
