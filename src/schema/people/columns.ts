/**
 * The columns every User row is loaded with (the User object's base selection): the small public
 * ones, which the object resolves as plain fields. Never the password hash; the email only when
 * a query asks for it.
 */
export const USER_COLUMNS = { id: true, name: true, username: true, locale: true } as const;
