import { createHash } from 'node:crypto';
import MarkdownIt from 'markdown-it';

/**
 * Issue descriptions as HTML. Anyone who can write an issue writes this text and everyone in the
 * organization reads it, so it is treated as hostile: raw HTML is off (it is shown as text),
 * links lead only to http, https and mailto addresses (anything else stays plain text), every
 * link says `rel="noopener nofollow ugc"`, and images become links to the picture (the page's
 * CSP loads nothing from another origin, and a picture would tell its host who read the issue).
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

const SAFE_HREF = /^(https?:\/\/|mailto:)/i;
// markdown-it calls this with the normalized (percent-encoded) address of every link, autolink and image.
md.validateLink = (url) => SAFE_HREF.test(url);

const REL = 'noopener nofollow ugc';

md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  tokens[idx]!.attrSet('rel', REL);
  return self.renderToken(tokens, idx, options);
};

md.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const src = md.utils.escapeHtml(String(token.attrGet('src') ?? ''));
  const alt = md.utils.escapeHtml(self.renderInlineAsText(token.children ?? [], options, env)) || 'image';
  return `<a href="${src}" rel="${REL}">${alt}</a>`;
};

/**
 * Rendered descriptions, by their text's hash, least recently used first. A crafted 50,000-character
 * description takes markdown-it up to about 0.3 s; kept here, reloading its page costs a hash.
 * Bounded by the characters kept (about 8 MB), not by the count.
 */
const CACHE_CHARS = 4_000_000;
const cache = new Map<string, string>();
let cachedChars = 0;

/** The description's HTML, safe to put in the page as it is. */
export function renderMarkdown(text: string): string {
  const key = createHash('sha256').update(text).digest('base64url');
  const kept = cache.get(key);
  if (kept !== undefined) {
    cache.delete(key);
    cache.set(key, kept);
    return kept;
  }
  const html = md.render(text);
  cache.set(key, html);
  cachedChars += html.length;
  for (const [oldest, value] of cache) {
    if (cachedChars <= CACHE_CHARS) break;
    cache.delete(oldest);
    cachedChars -= value.length;
  }
  return html;
}
