import type { Principal } from './auth/principal.js';
import type { Config } from './config.js';
import type { Db } from './db/client.js';

/** What every resolver sees, whichever surface (REST or GraphQL) the request came through. */
export interface Context {
  principal: Principal;
  prisma: Db;
  config: Config;
}
