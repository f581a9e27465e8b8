import { AppError, ValidationError } from '../schema/core/errors.js';

/** A posted form as strings (a body that is not a form is an empty form). */
export async function readForm(request: Request): Promise<Record<string, string>> {
  const form = await request.formData().catch(() => new FormData());
  const fields: Record<string, string> = {};
  for (const [name, value] of form) if (typeof value === 'string' && !(name in fields)) fields[name] = value;
  return fields;
}

/** A posted form with the fields that may repeat (`lists`: a list's checkboxes) as lists, the others as strings. */
export async function readFormWithLists(
  request: Request,
  lists: readonly string[],
): Promise<{ fields: Record<string, string>; lists: Record<string, string[]> }> {
  const form = await request.formData().catch(() => new FormData());
  const fields: Record<string, string> = {};
  const listed: Record<string, string[]> = Object.fromEntries(lists.map((name) => [name, []]));
  for (const [name, value] of form) {
    if (typeof value !== 'string') continue;
    if (lists.includes(name)) listed[name]!.push(value);
    else if (!(name in fields)) fields[name] = value;
  }
  return { fields, lists: listed };
}

export interface FormFailure {
  status: number;
  /** By input field (the operation's name for it), shown next to the field. */
  errors: Record<string, string>;
  /** A failure that belongs to no one field, shown above the form. */
  formError: string | null;
  headers: Record<string, string>;
}

/**
 * An operation's refusal as a form shows it, with the status the API would answer. Errors that
 * are not the operation's (bugs) are thrown on, to the router's 500 page. `inputOf` names the
 * form input a field error belongs to (a form may show one message for a list's items).
 */
export function formFailure(error: unknown, inputOf: (field: string) => string = (field) => field): FormFailure {
  if (!(error instanceof AppError)) throw error;
  const fieldErrors = error instanceof ValidationError ? error.fieldErrors : [];
  const retryAfter = (error.extensions as { retryAfter?: number }).retryAfter;
  return {
    status: error.status,
    errors: Object.fromEntries(fieldErrors.map((e) => [inputOf(e.field), e.message])),
    formError: fieldErrors.length ? null : error.message,
    headers: retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {},
  };
}
