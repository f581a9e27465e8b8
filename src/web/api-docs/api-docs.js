// Starts Swagger UI on /api/docs. A file of its own rather than an inline script, so the page's
// Content-Security-Policy stays `script-src 'self'` (see src/web/api-docs.ts).
/* global SwaggerUIBundle */
'use strict';

const root = document.getElementById('swagger-ui');

// Swagger UI leaves a few controls without an accessible name, or with one that hides their
// visible text, and lets long code blocks scroll out of keyboard reach (axe: select-name,
// button-name, label-content-name-mismatch, scrollable-region-focusable). Mend each as it
// appears; React leaves alone the attributes it did not set.
function mendAccessibility() {
  for (const select of root.querySelectorAll('select:not([aria-label])')) {
    const row = select.closest('tr[data-param-name]');
    if (row) select.setAttribute('aria-label', `${row.dataset.paramName} (${row.dataset.paramIn})`);
    else if (select.id === 'servers') select.setAttribute('aria-label', 'Server');
    else if (select.classList.contains('examples-select-element')) select.setAttribute('aria-label', 'Example');
  }
  for (const button of root.querySelectorAll('button.close-modal:not([aria-label])')) button.setAttribute('aria-label', 'Close');
  for (const input of root.querySelectorAll('input[aria-label="auth-bearer-value"]')) input.setAttribute('aria-label', 'Bearer token');
  for (const button of root.querySelectorAll('button.modal-btn[aria-label]')) {
    if (button.getAttribute('aria-label') !== button.textContent) button.setAttribute('aria-label', button.textContent);
  }
  for (const pre of root.querySelectorAll('pre:not([tabindex])')) {
    if (pre.scrollWidth > pre.clientWidth || pre.scrollHeight > pre.clientHeight) pre.setAttribute('tabindex', '0');
  }
}
new MutationObserver(mendAccessibility).observe(root, { childList: true, subtree: true });

// "Authorize" offers what a reader can paste here: the token schemes. The OAuth flow needs a
// registered client and `resource` (RFC 8707), which Swagger UI does not send, and the browser
// sets the session cookie itself (the calls here omit it): both stay in the document, not the dialog.
const PASTEABLE = (scheme) => scheme.get('type') === 'http' || (scheme.get('type') === 'apiKey' && scheme.get('in') === 'header');
function pasteableAuthorizations() {
  return {
    statePlugins: {
      auth: {
        wrapSelectors: {
          definitionsToAuthorize: (original) => (...args) =>
            original(...args)
              .map((group) => group.filter(PASTEABLE))
              .filter((group) => group.size > 0),
        },
      },
    },
  };
}

window.ui = SwaggerUIBundle({
  url: root.dataset.openapi,
  domNode: root,
  presets: [SwaggerUIBundle.presets.apis],
  // The base layout: the standalone one adds a bar to load any URL, which this page has no use for.
  layout: 'BaseLayout',
  // Deep links put an <a> inside each operation's <button> (axe: nested-interactive).
  deepLinking: false,
  // The default asks validator.swagger.io to check the document: a request to another origin.
  validatorUrl: null,
  // The token lives in memory only: a reload forgets it (never in localStorage).
  persistAuthorization: false,
  displayRequestDuration: true,
  showExtensions: true,
  showCommonExtensions: true,
  filter: true,
  plugins: [pasteableAuthorizations],
  requestInterceptor(request) {
    // Calls carry the pasted token and nothing else: a signed-in reader's session cookie would
    // otherwise authenticate them too, and the answer would not be what a program gets.
    request.credentials = 'omit';
    return request;
  },
});
