import { HttpProblem } from './problem.js';

const MAX_BODY_BYTES = 1024 * 1024;

/** Reads a JSON object body: 415 for another media type, 413 when too large, 400 when not a JSON object. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\s*(;|$)/i.test(type)) {
    throw new HttpProblem(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.', undefined, {
      'accept-post': 'application/json',
    });
  }
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw tooLarge();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpProblem(400, 'MALFORMED_JSON', 'The body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpProblem(400, 'MALFORMED_JSON', 'The body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

function tooLarge() {
  return new HttpProblem(413, 'PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
}
