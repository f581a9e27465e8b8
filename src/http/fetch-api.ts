/**
 * The Response and Headers classes every answer of the service is made of.
 *
 * @whatwg-node's implementation, not Node's global (undici) one: the same WHATWG API, but a body
 * given as a string stays a string. Undici wraps every body in a web ReadableStream, and the
 * Node adapter (@whatwg-node/server, src/http/node-server.ts) then has to read that stream back
 * chunk by chunk; for a response @whatwg-node made it writes the string to the socket at once.
 * Measured on the issue list (100 issues, 43 KB): about a quarter of the server's CPU per
 * request (bench/SUMMARY.md). Every module that makes or recognises a response imports these,
 * so `instanceof Response` means one class everywhere; requests stay whatever the caller made.
 */
export { Headers, Response } from '@whatwg-node/fetch';
