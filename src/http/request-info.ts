/**
 * What the server adapter (src/http/node-server.ts) knows of a request beyond the Request
 * itself. An argument of the service's fetch handler, never state: the pipeline copies what it
 * needs into the request context (src/pipeline/request-context.ts).
 */
export interface RequestInfo {
  /** The socket's peer address (the Node adapter passes it; tests may). */
  remoteAddress?: string;
}
