import { randomBytes } from 'node:crypto';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { hashToken } from './pat-token.js';

/** A session lasts 30 days from its last use ... */
export const SESSION_IDLE_MS = 30 * 24 * 3600 * 1000;
/** ... and never longer than 90 days after sign-in, however often it is used. */
export const SESSION_ABSOLUTE_MS = 90 * 24 * 3600 * 1000;
/** Use pushes the expiry forward at most once an hour, so reads do not write on every request. */
const REFRESH_EVERY_MS = 3600 * 1000;

/** `__Host-` pins the cookie to our origin (Secure, Path=/, no Domain) wherever https allows it. */
export function sessionCookieName(config: Config): string {
  return config.baseUrl.startsWith('https:') ? '__Host-wm_session' : 'wm_session';
}

export function readSessionCookie(config: Config, headers: Headers): string | null {
  const header = headers.get('cookie');
  if (!header) return null;
  return parseCookies(header)[sessionCookieName(config)] || null;
}

export function sessionCookie(config: Config, token: string, expiresAt: Date, now = new Date()): string {
  return serializeCookie(sessionCookieName(config), token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.baseUrl.startsWith('https:'),
    path: '/',
    maxAge: Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)),
  });
}

export function clearedSessionCookie(config: Config): string {
  return serializeCookie(sessionCookieName(config), '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.baseUrl.startsWith('https:'),
    path: '/',
    maxAge: 0,
  });
}

/** Starts a session with a new random id (never reusing one the browser already had). */
export async function startSession(db: Db, userId: string, now = new Date()) {
  const token = randomBytes(32).toString('base64url');
  const absoluteExpiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  const session = await db.session.create({
    data: {
      userId,
      tokenHash: hashToken(token),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_IDLE_MS),
      absoluteExpiresAt,
    },
  });
  return { token, session };
}

/** Ends a session everywhere at once: the row is gone, so every instance refuses it. */
export async function endSession(db: Db, token: string): Promise<void> {
  await db.session.deleteMany({ where: { tokenHash: hashToken(token) } });
}

export interface LiveSession {
  id: string;
  userId: string;
  memberships: { orgId: string; role: import('./principal.js').Role }[];
  /** Set when this use pushed the expiry forward: the cookie must be sent again. */
  refreshedUntil: Date | null;
}

/** The live session for a cookie value, sliding its expiry on use; null when unknown or expired. */
export async function resolveSession(db: Db, token: string, now = new Date()): Promise<LiveSession | null> {
  const session = await db.session.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      userId: true,
      lastSeenAt: true,
      expiresAt: true,
      absoluteExpiresAt: true,
      user: { select: { memberships: { select: { orgId: true, role: true } } } },
    },
  });
  if (!session) return null;
  if (session.expiresAt <= now || session.absoluteExpiresAt <= now) {
    await db.session.delete({ where: { id: session.id } }).catch(() => {});
    return null;
  }
  let refreshedUntil: Date | null = null;
  if (now.getTime() - session.lastSeenAt.getTime() >= REFRESH_EVERY_MS) {
    refreshedUntil = new Date(Math.min(now.getTime() + SESSION_IDLE_MS, session.absoluteExpiresAt.getTime()));
    await db.session.update({ where: { id: session.id }, data: { lastSeenAt: now, expiresAt: refreshedUntil } });
  }
  return { id: session.id, userId: session.userId, memberships: session.user.memberships, refreshedUntil };
}
