/** Extended private keys (xprv, tprv, yprv, zprv, uprv, vprv and their multisig cousins) in base58. */
const PRIVATE_KEY = /\b[xyztuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{20,}/g;
/** BIP39-looking phrases of 12+ lowercase words would be seeds; URL paths never carry them legitimately. */
const SECRET_QUERY = /([?&](?:token|access_token|auth_token|otp|secret|client_secret|key|password|merchant_auth_key|withdrawal_auth_key|partner_auth_key)=)[^&#]*/gi;

/** Removes secrets from a URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(PRIVATE_KEY, '[redacted-private-key]').replace(SECRET_QUERY, '$1[redacted]');
}

/** Header and body paths pino must never print. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'body.otp',
  'body.token',
  'body.auth_token',
  'body.client_secret',
  'body.merchant_auth_key',
  'body.withdrawal_auth_key',
  'body.partner_auth_key',
];
