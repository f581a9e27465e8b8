// The package's public surface: the generated operations and types, and the behaviour around them.
export { exportIssues, type ExportOptions, type ExportResult } from './bulk-export.js';
export { WorkmgmtClient, type WorkmgmtClientOptions } from './client.js';
export type * from './generated/types.gen.js';
export {
  authorizeWithLoopback,
  type LoopbackSignInOptions,
  OAuthSession,
  type OAuthSessionOptions,
  type OAuthTokens,
} from './oauth.js';
export { type ListItem, type ListOperation, type ListOptions, nextLink } from './paging.js';
export { ApiProblem, type Problem, type ProblemCode } from './problem.js';
export {
  MAX_BACKOFF_MS,
  MAX_TRIES,
  refusalWaitMs,
  type TokenSource,
  type WaitEvent,
  type WaitReason,
} from './retry.js';
export {
  type FieldChange,
  type IssueWebhookEvent,
  type ProjectWebhookEvent,
  type Via,
  verifyWebhook,
  verifyWebhookBody,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookPingEvent,
} from './webhooks.js';
