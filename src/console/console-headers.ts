// Response headers of console pages. Like the payment pages' policy (no inline code, nothing from elsewhere),
// except that forms post to the console itself (form-action 'self') and the referrer policy is `same-origin`:
// under `no-referrer` Chromium sends `Origin: null` on same-origin form posts (DESIGN.md section 9), and the
// same-origin check needs a real Origin or Referer.
import { PAGE_SECURITY_HEADERS, strictCsp } from '../pages/page-headers.ts';

/** The console's Content-Security-Policy. */
export const CONSOLE_CSP = strictCsp("'self'");

/** Headers of every console response. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  ...PAGE_SECURITY_HEADERS,
  'content-security-policy': CONSOLE_CSP,
  'referrer-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
