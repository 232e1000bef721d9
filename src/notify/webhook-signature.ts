// Webhook signatures (DESIGN.md section 7):
//   X-Satgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>[,v1=<...>]
// One v1 entry per active secret, so a merchant rotating secrets can verify with either.

import { createHmac, timingSafeEqual } from 'node:crypto';

/** Name of the HTTP header carrying the signature. */
export const SIGNATURE_HEADER = 'X-Satgate-Signature';

/** Default accepted clock difference between signing and verifying, in seconds. */
export const DEFAULT_TOLERANCE_SEC = 300;

function mac(secret: string, t: number, body: string | Uint8Array): Buffer {
  const h = createHmac('sha256', secret);
  h.update(`${t}.`, 'utf8');
  h.update(body);
  return h.digest();
}

/** Builds the header value for `body` (the exact bytes sent) signed with every active secret. */
export function signWebhook(body: string | Uint8Array, secrets: readonly string[], nowSec: number): string {
  if (secrets.length === 0) throw new RangeError('at least one webhook secret is required');
  if (!Number.isSafeInteger(nowSec) || nowSec < 0) throw new RangeError(`bad timestamp ${nowSec}`);
  const entries = secrets.map((s) => {
    if (s.length === 0) throw new RangeError('empty webhook secret');
    return `v1=${mac(s, nowSec, body).toString('hex')}`;
  });
  return [`t=${nowSec}`, ...entries].join(',');
}

/** Parses a signature header into its timestamp and v1 signatures; null when malformed. */
export function parseSignatureHeader(header: string): { t: number; v1: Buffer[] } | null {
  let t: number | null = null;
  const v1: Buffer[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== null || !/^\d{1,15}$/.test(value)) return null;
      t = Number(value);
    } else if (key === 'v1') {
      // Other schemes (v0, future v2) are ignored so they can be added without breaking verifiers.
      if (/^[0-9a-fA-F]{64}$/.test(value)) v1.push(Buffer.from(value, 'hex'));
    }
  }
  return t === null ? null : { t, v1 };
}

/** True when one v1 entry of `header` is `secret`'s HMAC of `body` and t is within `toleranceSec` of now. */
export function verifyWebhookSignature(
  header: string,
  body: string | Uint8Array,
  secret: string,
  toleranceSec: number = DEFAULT_TOLERANCE_SEC,
  nowSec: number = Math.floor(Date.now() / 1000),
): boolean {
  const parsed = parseSignatureHeader(header);
  if (!parsed || parsed.v1.length === 0) return false;
  if (Math.abs(nowSec - parsed.t) > toleranceSec) return false;
  const expected = mac(secret, parsed.t, body);
  let ok = false;
  // Compare against every entry (no early exit) so timing does not reveal which one matched.
  for (const candidate of parsed.v1) ok = timingSafeEqual(candidate, expected) || ok;
  return ok;
}
