import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret in the Standard Webhooks format: `whsec_` and 32 random bytes, base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks headers for one attempt: `webhook-signature` is `v1,<base64 HMAC-SHA256>`
 * of `id.timestamp.body` over the exact bytes sent, once per secret that signs (the current one,
 * and during a rotation's grace period the previous one), space-separated as the scheme allows.
 */
export function signatureHeaders(secrets: string[], messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' '),
  };
}
