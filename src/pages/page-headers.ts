// Response headers of every HTML page and page asset: a strict Content-Security-Policy that
// only works because pages carry no inline script or style (CSS and JS are served as files).
// `strictCsp` is shared with the merchant console (src/console/console-headers.ts), which differs only in
// where forms may post.

/** The strict policy: same-origin scripts, styles, images and fetches only; forms post to `formAction`. */
export function strictCsp(formAction: "'none'" | "'self'"): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The Content-Security-Policy of the hosted pages. Forms may go to the page's own origin only: the language
 * picker is a plain GET form that reloads the page (it must work without JavaScript).
 */
export const PAGE_CSP = strictCsp("'self'");

/** Headers sent with every page and page asset. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Older browsers ignore frame-ancestors; this keeps the page out of frames there too.
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};
