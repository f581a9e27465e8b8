import { jsonShapeError } from '../schema/core/json-shape.js';
import { AppError } from '../schema/core/errors.js';
import { problems } from '../http/problem.js';

/**
 * Reads a JSON object body: 415 for another media type, 400 when not a JSON object. Its size
 * was bounded before the request got here (src/http/body-limit.ts).
 */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\s*(;|$)/i.test(type)) {
    throw problems.unsupportedMediaType();
  }
  const text = await request.text();
  // Before JSON.parse builds it (src/schema/core/json-shape.ts).
  const excess = jsonShapeError(text, { root: 'body', path: [] });
  if (excess) throw problems.validation([excess]);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('The body is not valid JSON.', 'MALFORMED_JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('The body must be a JSON object.', 'MALFORMED_JSON');
  }
  return body as Record<string, unknown>;
}
