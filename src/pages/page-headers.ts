// Response headers of every HTML page and page asset: a strict Content-Security-Policy that
// only works because pages carry no inline script or style (CSS and JS are served as files).

/** The Content-Security-Policy of the hosted pages. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers sent with every page and page asset. */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Older browsers ignore frame-ancestors; this keeps the page out of frames there too.
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};
