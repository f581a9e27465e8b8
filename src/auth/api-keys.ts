import type { Db } from '../db/client.js';
import type { ApiKey } from '../generated/prisma/client.js';
import { generatePat, hashToken, patHint } from './pat-token.js';

export interface MintedKey {
  key: ApiKey;
  /** The plaintext token: returned here once, never stored, never retrievable again. */
  token: string;
}

/** Creates an API key for a member of an organization. Policy checks are the caller's. */
export async function mintApiKey(
  db: Pick<Db, 'apiKey'>,
  input: { userId: string; orgId: string; name: string; expiresAt?: Date | null },
): Promise<MintedKey> {
  const token = generatePat();
  const key = await db.apiKey.create({
    data: {
      userId: input.userId,
      orgId: input.orgId,
      name: input.name,
      expiresAt: input.expiresAt ?? null,
      tokenHash: hashToken(token),
      hint: patHint(token),
    },
  });
  return { key, token };
}
