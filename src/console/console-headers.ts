// Response headers of console pages. Like the payment pages' policy (no inline code, nothing from elsewhere),
// except that forms post to the console itself (form-action 'self') and the referrer policy is `same-origin`:
// under `no-referrer` Chromium sends `Origin: null` on same-origin form posts (DESIGN.md section 9), and the
// same-origin check needs a real Origin or Referer.

/** The console's Content-Security-Policy. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every console response. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
