import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message as the SMTP server received it: envelope recipients and the decoded text. */
interface ReceivedMail {
  to: string[];
  /** The raw message with quoted-printable undone (nodemailer folds long lines with it). */
  text: string;
}

export interface MailSink {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  received: ReceivedMail[];
  /** The next message (now, if one already came and was not taken). */
  next(): Promise<ReceivedMail>;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A real SMTP server on a loopback port that keeps what it receives (no TLS, no authentication). */
export async function startMailSink(): Promise<MailSink> {
  const received: ReceivedMail[] = [];
  const waiting: ((mail: ReceivedMail) => void)[] = [];
  let taken = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = {
          to: session.envelope.rcptTo.map((r) => r.address),
          text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
        };
        received.push(mail);
        const waiter = waiting.shift();
        if (waiter) {
          taken++;
          waiter(mail);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    next: () =>
      taken < received.length ? Promise.resolve(received[taken++]!) : new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
