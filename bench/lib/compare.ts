// Response comparison between the app and the baseline: same status, same content type, and
// JSON with the same keys in the same order, the same types and (unless told otherwise) values.

export interface Captured {
  status: number;
  contentType: string | null;
  link: string | null;
  body: string;
}

export interface Comparison {
  status: [number, number];
  bytes_equal: boolean;
  bytes: [number, number];
  differences: string[];
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

function walk(a: unknown, b: unknown, path: string, ignore: (path: string) => boolean, out: string[]) {
  if (out.length >= 20) return;
  if (kind(a) !== kind(b)) {
    // A value that may differ (an id, a time) may also be null on one side only.
    if (!ignore(path)) out.push(`${path || '$'}: ${kind(a)} vs ${kind(b)}`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path || '$'}: ${a.length} items vs ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], `${path}[${i}]`, ignore, out);
    return;
  }
  if (kind(a) === 'object') {
    const ka = Object.keys(a as object);
    const kb = Object.keys(b as object);
    if (ka.join(',') !== kb.join(',')) out.push(`${path || '$'}: keys [${ka.join(',')}] vs [${kb.join(',')}]`);
    for (const k of ka)
      if (kb.includes(k))
        walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, ignore, out);
    return;
  }
  if (a !== b && !ignore(path)) out.push(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
}

/** `ignore` names paths whose values may differ (ids, numbers and times of two separate creates). */
export function compareResponses(
  app: Captured,
  base: Captured,
  ignore: (path: string) => boolean = () => false,
): Comparison {
  const differences: string[] = [];
  if (app.status !== base.status) differences.push(`status ${app.status} vs ${base.status}`);
  if (app.contentType?.toLowerCase() !== base.contentType?.toLowerCase())
    differences.push(`content-type ${app.contentType} vs ${base.contentType}`);
  const origin = /^<https?:\/\/[^/]+/;
  if ((app.link ?? '').replace(origin, '<') !== (base.link ?? '').replace(origin, '<'))
    differences.push(`link ${app.link} vs ${base.link}`);
  try {
    walk(JSON.parse(app.body), JSON.parse(base.body), '', ignore, differences);
  } catch (error) {
    differences.push(`not JSON: ${(error as Error).message}`);
  }
  return {
    status: [app.status, base.status],
    bytes_equal: app.body === base.body,
    bytes: [Buffer.byteLength(app.body), Buffer.byteLength(base.body)],
    differences,
  };
}

export async function capture(
  port: number,
  request: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<Captured> {
  const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body ?? null,
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    link: response.headers.get('link'),
    body: await response.text(),
  };
}
