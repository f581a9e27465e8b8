import { localEpoch, type CredentialEpoch } from '../../auth/credential-epoch.js';
import { loadConfig, type Config } from '../../config.js';
import type { Context } from '../../context.js';
import type { Db } from '../../db/client.js';
import { RateLimiter } from '../../limits/limiter.js';
import { MemoryStore } from '../../limits/memory-store.js';

/**
 * The context of an operator at the console (the admin CLI, the seed): the operations' rules
 * apply to what it writes, but no role is needed and no bucket is drawn from (see
 * OperatorPrincipal). `orgId` is the organization it acts in, when the operation needs one.
 */
export function operatorContext(
  prisma: Db,
  options: { orgId?: string; credentialEpoch?: CredentialEpoch; config?: Config } = {},
): Context {
  return {
    principal: { kind: 'operator', org: options.orgId ? { id: options.orgId, role: 'owner' } : null },
    prisma,
    config: options.config ?? loadConfig({}),
    clientIp: 'console',
    // Never drawn from (limitOperation passes operators), but a context always has one.
    limiter: new RateLimiter(new MemoryStore()),
    rateLimits: [],
    credentialEpoch: options.credentialEpoch ?? localEpoch,
  };
}
