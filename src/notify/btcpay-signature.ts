// Greenfield (BTCPay) webhook signatures: `BTCPay-Sig: sha256=<lowercase hex HMAC-SHA256(secret as UTF-8, raw body)>`.
// No timestamp and no key rotation, unlike our own X-Satgate-Signature: the shop plugins verify exactly this form.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Name of the header BTCPay's clients read. */
export const BTCPAY_SIGNATURE_HEADER = 'BTCPay-Sig';

/** The header value for `body` (the exact bytes sent) under `secret`. */
export function btcpaySignature(body: string | Uint8Array, secret: string): string {
  if (secret.length === 0) throw new RangeError('empty webhook secret');
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;
}

/** True when `header` is `secret`'s signature of `body` (constant-time comparison). */
export function verifyBtcpaySignature(header: string, body: string | Uint8Array, secret: string): boolean {
  const expected = Buffer.from(btcpaySignature(body, secret), 'utf8');
  const given = Buffer.from(header, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
