import type { Mail } from './mailer.js';

/** The message that carries an invitation link. */
export function invitationMail(
  to: string,
  m: { orgName: string; inviterName: string; role: string; url: string; expiresAt: Date },
): Mail {
  return {
    to,
    subject: `${m.inviterName} invited you to ${m.orgName}`,
    text:
      `${m.inviterName} invited you to join ${m.orgName} as ${m.role}.\n\n` +
      `Open this link to create your account (or sign in) and join:\n${m.url}\n\n` +
      `It works once, until ${m.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.\n`,
  };
}

/** The message that carries a link to set one's password. */
export function passwordLinkMail(to: string, m: { url: string; expiresAt: Date }): Mail {
  return {
    to,
    subject: 'Set your workmgmt password',
    text:
      `An account for ${to} is ready. Choose your password here:\n${m.url}\n\n` +
      `The link works once, until ${m.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.\n`,
  };
}
