/** Moments as pages show them: in UTC on the server, relative and local in the browser (app.js). */

/** A moment in UTC, to the minute: text where markup cannot go (a button's label, a select). */
export function formatDate(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The day alone, where a column has no room for the time (the dashboard's short lists). */
export function formatDay(iso: string): string {
  return iso.slice(0, 10);
}

const escapeAttr = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The one way a page shows a moment: `<time>` with the ISO instant, and the UTC time as its text
 * and title. app.js turns the text into a relative one ("3 hr. ago", "yesterday") and the title
 * into the reader's local time; without JavaScript the UTC time stays. Templates print it raw
 * (`<%~ it.time(value) %>`): the one value in it is escaped here.
 */
export function timeTag(value: string | Date): string {
  const iso = escapeAttr(typeof value === 'string' ? value : value.toISOString());
  const utc = escapeAttr(formatDate(iso));
  return `<time datetime="${iso}" title="${utc}" data-relative>${utc}</time>`;
}
