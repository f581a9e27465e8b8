import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorCode, StartupError } from './startup-error.js';

/** Why a port could not be bound, as one line naming the setting (`PORT` or `METRICS_PORT`) and the fix. */
function listenFailure(error: unknown, setting: string, host: string, port: number): StartupError | unknown {
  switch (errorCode(error)) {
    case 'EADDRINUSE':
      return new StartupError(
        `${setting}=${port}: ${host}:${port} is already in use by another process. Stop that process, or set ${setting} to a free port.`,
      );
    case 'EACCES':
      return new StartupError(
        `${setting}=${port}: not allowed to listen on ${host}:${port} (ports below 1024 need privileges). Set ${setting} to 1024 or above.`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartupError(
        `HOST=${host}: this machine has no such address. Set HOST to one of its addresses (127.0.0.1, or 0.0.0.0 for every interface).`,
      );
    default:
      return error;
  }
}

/**
 * Binds `server` to host:port and resolves with the port bound (PORT=0 picks a free one).
 * Done before the database is opened or migrated, so a port in use stops the start having
 * changed nothing.
 */
export function listen(server: Server, port: number, host: string, setting = 'PORT'): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: unknown) => reject(listenFailure(error, setting, host, port));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
