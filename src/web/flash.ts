import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Config } from '../config.js';

/**
 * What a write tells the page it redirects to (post/redirect/get): a notice, and at most once a
 * secret that is shown only once (a new API key's token, an invite code). It travels in a
 * short-lived cookie rather than the URL, so the secret never lands in history, logs or a
 * Referer, and any instance can show it (nothing is kept in a process). The GET that shows it
 * clears it, so a reload shows it no more. HttpOnly, SameSite=Strict, Secure under https.
 */
export interface Flash {
  notice?: string;
  /** Shown once, with a copy button: `label` names it ("Token", "Invite code"). */
  secret?: { title: string; label: string; value: string; warning: string };
}

const NAME = 'wm_flash';
/** Long enough for a slow redirect, short enough that an unshown secret does not linger. */
const MAX_AGE_SECONDS = 120;

const options = (config: Config, maxAge: number) => ({
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: config.baseUrl.startsWith('https:'),
  path: '/',
  maxAge,
});

export function flashCookie(config: Config, flash: Flash): string {
  return serializeCookie(
    NAME,
    Buffer.from(JSON.stringify(flash)).toString('base64url'),
    options(config, MAX_AGE_SECONDS),
  );
}

export function clearedFlashCookie(config: Config): string {
  return serializeCookie(NAME, '', options(config, 0));
}

/** The flash a request carries, or null (a value that does not parse is ignored). */
export function readFlash(headers: Headers): Flash | null {
  const value = parseCookies(headers.get('cookie') ?? '')[NAME];
  if (!value) return null;
  try {
    const flash = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Flash;
    return typeof flash === 'object' && flash !== null ? flash : null;
  } catch {
    return null;
  }
}
