/** Each request's URL, parsed once. */
const parsed = new WeakMap<Request, URL>();

/**
 * The request's URL, parsed on first use and shared by every later step (the operations layer,
 * the pipeline, the router each need it: six parses a request before). Read it; never change it.
 */
export function requestUrl(request: Request): URL {
  let url = parsed.get(request);
  if (!url) {
    url = new URL(request.url);
    parsed.set(request, url);
  }
  return url;
}
