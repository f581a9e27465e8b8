import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
  type JWTVerifyOptions,
} from 'jose';
import type { Db } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';

const ALG = 'ES256';
const RELOAD_AT_MOST_EVERY_MS = 10_000;

/**
 * The keys that sign access tokens, kept in the database so every instance shares them.
 * The newest unretired key signs; all unretired keys verify and are published at jwks_uri,
 * so rotating is: add a key (it signs from then on), later retire the old one.
 */
export class SigningKeys {
  private signer!: { kid: string; key: CryptoKey };
  private published: JWK[] = [];
  private jwks!: ReturnType<typeof createLocalJWKSet>;
  private loadedAt = 0;

  private constructor(private readonly db: Db) {}

  static async open(db: Db): Promise<SigningKeys> {
    const keys = new SigningKeys(db);
    if ((await db.oAuthSigningKey.count({ where: { retiredAt: null } })) === 0) await keys.generate();
    await keys.load();
    return keys;
  }

  /** Adds a new signing key; it signs every token from the next load on. */
  async generate(): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), alg: ALG, use: 'sig' };
    const kid = await calculateJwkThumbprint(publicJwk);
    await this.db.oAuthSigningKey.create({
      data: {
        kid,
        alg: ALG,
        publicJwk: { ...publicJwk, kid },
        privateJwk: (await exportJWK(privateKey)) as Prisma.InputJsonObject,
      },
    });
    return kid;
  }

  async load(): Promise<void> {
    const rows = await this.db.oAuthSigningKey.findMany({ where: { retiredAt: null }, orderBy: { createdAt: 'desc' } });
    const newest = rows[0];
    if (!newest) throw new Error('no OAuth signing key');
    this.signer = { kid: newest.kid, key: (await importJWK(newest.privateJwk as JWK, ALG)) as CryptoKey };
    this.published = rows.map((r) => r.publicJwk as JWK);
    this.jwks = createLocalJWKSet({ keys: this.published });
    this.loadedAt = Date.now();
  }

  /** The JWK Set published at jwks_uri. */
  publicJwks(): { keys: JWK[] } {
    return { keys: this.published };
  }

  sign(claims: JWTPayload, typ: string, expiresInSeconds: number): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALG, kid: this.signer.kid, typ })
      .setIssuedAt()
      .setExpirationTime(`${expiresInSeconds}s`)
      .sign(this.signer.key);
  }

  /** Verifies with explicit issuer, audience, algorithm and type; a key added by another instance is picked up. */
  async verify(token: string, options: Omit<JWTVerifyOptions, 'algorithms'>): Promise<JWTPayload> {
    try {
      return (await jwtVerify(token, this.jwks, { ...options, algorithms: [ALG] })).payload;
    } catch (error) {
      if (
        (error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY' ||
        Date.now() - this.loadedAt < RELOAD_AT_MOST_EVERY_MS
      )
        throw error;
      await this.load();
      return (await jwtVerify(token, this.jwks, { ...options, algorithms: [ALG] })).payload;
    }
  }
}
