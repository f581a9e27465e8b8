import { createTransport, type Transporter } from 'nodemailer';
import type { MailSettings } from '../config.js';
import { redactUrl } from '../config.js';

/** One message: plain text, since every message here is a sentence and a link. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends mail through SMTP_URL. A failure is logged (without the message, which holds a secret
 * link) and answered with false: the link is still shown to whoever made it, who can pass it on.
 */
export interface Mailer {
  send(mail: Mail): Promise<boolean>;
  close(): void;
}

/** Where a failure to send is reported (the service's logger, or the console of a command). */
export type MailWarning = (fields: Record<string, unknown>, message: string) => void;

/** The mailer of SMTP_URL, or undefined when it is not set. */
export function createMailer(settings: MailSettings, warn: MailWarning): Mailer | undefined {
  if (!settings.smtpUrl) return undefined;
  // A stuck server must not hold a request for nodemailer's default of minutes.
  const transport: Transporter = createTransport({
    url: settings.smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(mail) {
      try {
        await transport.sendMail({ from: settings.from, ...mail });
        return true;
      } catch (error) {
        warn(
          {
            smtp: redactUrl(settings.smtpUrl!),
            code: (error as { code?: string }).code,
            reason: (error as Error).message,
          },
          'could not send mail',
        );
        return false;
      }
    },
    close: () => transport.close(),
  };
}
