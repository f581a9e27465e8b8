import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { Issue, Project } from './generated/types.gen.js';

export { WebhookVerificationError };

/** Through what a change was made: an API key, an OAuth client, a browser session, the operator's CLI. */
export type Via = 'pat' | 'oauth' | 'session' | 'cli';

/** One field of a change (REST names): its value before (null when created) and after (null when deleted). */
export interface FieldChange {
  field: string;
  old: string | number | boolean | null;
  new: string | number | boolean | null;
}

interface ChangeEvent<Type extends string, Data> {
  /** The event id, also the `webhook-id` header: the same on every retry, so duplicates can be dropped. */
  id: string;
  type: Type;
  /** When the change was made (ISO 8601, UTC). */
  timestamp: string;
  organization_id: string;
  /** Who: the user (null for the operator's CLI), through what, and the key or OAuth client id. */
  actor: { user_id: string | null; via: Via; via_id: string | null };
  /** The resource as the REST API shows it: after the change, or before it for a delete. */
  data: Data;
  changes: FieldChange[];
}

export type IssueWebhookEvent = ChangeEvent<'issue.created' | 'issue.updated' | 'issue.deleted', Issue>;
export type ProjectWebhookEvent = ChangeEvent<'project.created' | 'project.updated' | 'project.deleted', Project>;

/** What `POST /api/webhooks/{id}/ping` sends, to check an endpoint and its signature check. */
export interface WebhookPingEvent {
  id: string;
  type: 'webhook.ping';
  timestamp: string;
  organization_id: string;
  data: { webhook_id: string };
}

/** A webhook payload: narrow on `type`. */
export type WebhookEvent = IssueWebhookEvent | ProjectWebhookEvent | WebhookPingEvent;

/**
 * Checks a webhook request's Standard Webhooks signature over its exact body and answers its
 * event; throws `WebhookVerificationError` for a bad or missing signature, or a timestamp more
 * than 5 minutes away. `secret` is the endpoint's `whsec_...` (during a rotation, the previous one
 * still signs for 24 hours: either verifies). Read the body only here (it is read once).
 *
 * @example
 * const event = await verifyWebhook(request, process.env.WEBHOOK_SECRET!);
 * if (event.type === 'issue.created') console.log(event.data.key);
 */
export async function verifyWebhook(request: Request, secret: string): Promise<WebhookEvent> {
  return verifyWebhookBody(await request.text(), request.headers, secret);
}

/** `verifyWebhook` for servers that hand over the raw body and headers (Express with `express.raw()`). */
export function verifyWebhookBody(
  body: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string,
): WebhookEvent {
  const get = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return Array.isArray(value) ? value.join(' ') : (value ?? '');
  };
  const signed = {
    'webhook-id': get('webhook-id'),
    'webhook-timestamp': get('webhook-timestamp'),
    'webhook-signature': get('webhook-signature'),
  };
  return new Webhook(secret).verify(body, signed) as WebhookEvent;
}
