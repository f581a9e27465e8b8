import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { problemResponse, problems } from '../http/problem.js';
import { Response } from '../http/fetch-api.js';

/**
 * Files of npm packages (Swagger UI, GraphiQL, Chart.js) and our own scripts for them, served
 * by the service itself so that no page loads anything from another origin. Each set lives
 * under a prefix; a file's URL carries a hash of its content, so it can be cached for good.
 */

export const JS = 'text/javascript; charset=utf-8';
export const CSS = 'text/css; charset=utf-8';

/** A file to serve, read from `file` or given by `read` (called once, on first use). */
export type AssetSource = { name: string; type: string } & ({ file: string } | { read: () => string });

interface Asset {
  type: string;
  body: Buffer;
  gzipped?: Buffer;
}

const acceptsGzip = (request: Request) => /\bgzip\b/i.test(request.headers.get('accept-encoding') ?? '');

export interface AssetSet<Name extends string> {
  /** The URL of each file, by name. */
  urls: Record<Name, string>;
  /** The file at `path` (HEAD too), a 404/405 problem for another path under the prefix, null outside it. */
  serve(request: Request, path: string): Response | null;
}

/**
 * Reads the files once, on first use (a page that links them, or a request under the prefix):
 * megabytes a service that never shows the page does not hold. Only these exact URLs are
 * served, so no path can reach another file.
 */
export function assetSet<const Sources extends readonly AssetSource[]>(
  prefix: string,
  sources: Sources,
): AssetSet<Sources[number]['name']> {
  return new LazyAssets(prefix, sources);
}

/** A class, not an object literal with a getter (test/no-literal-accessors.test.ts). */
class LazyAssets<Name extends string> implements AssetSet<Name> {
  private loaded: { assets: Map<string, Asset>; urls: Record<Name, string> } | undefined;

  constructor(
    private readonly prefix: string,
    private readonly sources: readonly AssetSource[],
  ) {}

  private load() {
    if (this.loaded) return this.loaded;
    const assets = new Map<string, Asset>();
    const urls = {} as Record<Name, string>;
    for (const source of this.sources) {
      const body = 'file' in source ? readFileSync(source.file) : Buffer.from(source.read());
      const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
      const url = `${this.prefix}${hash}/${source.name}`;
      assets.set(url, { type: source.type, body });
      urls[source.name as Name] = url;
    }
    this.loaded = { assets, urls };
    return this.loaded;
  }

  get urls(): Record<Name, string> {
    return this.load().urls;
  }

  serve(request: Request, path: string): Response | null {
    if (!path.startsWith(this.prefix)) return null;
    const asset = this.load().assets.get(path);
    if (!asset) return problemResponse(problems.notFound());
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return problemResponse(problems.methodNotAllowed(['GET', 'HEAD']));
    const headers: Record<string, string> = {
      'content-type': asset.type,
      'cache-control': 'public, max-age=31536000, immutable',
      vary: 'accept-encoding',
    };
    let body = asset.body;
    // Bundles of megabytes: compressed once, on first demand, and kept.
    if (acceptsGzip(request)) {
      asset.gzipped ??= gzipSync(asset.body);
      body = asset.gzipped;
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = String(body.length);
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { headers });
  }
}
