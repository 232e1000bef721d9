import { describe, it, expect } from 'vitest';
import { parseSignatureHeader, signWebhook, verifyWebhookSignature } from './webhook-signature.ts';

const BODY = '{"event":"payment","payment_reference":"P1"}';
const T = 1_700_000_000;
// Expected HMACs computed independently: printf '%s' "1700000000.$BODY" | openssl dgst -sha256 -hmac <secret>
const MAC_ONE = 'cc7ec0202bddca3389822577b69e4f74f74a0bbb133ae9fc726825e4ab5777df';
const MAC_TWO = 'd24dc71fc6050b98d13e5e5b6263db8bba0de9db5ca734206aefd384d54028a5';

describe('webhook signature', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 in the documented header format', () => {
    expect(signWebhook(BODY, ['whsec_one'], T)).toBe(`t=${T},v1=${MAC_ONE}`);
    expect(signWebhook(Buffer.from(BODY), ['whsec_one'], T)).toBe(`t=${T},v1=${MAC_ONE}`);
  });

  it('carries one v1 entry per active secret during rotation', () => {
    const header = signWebhook(BODY, ['whsec_one', 'whsec_two'], T);
    expect(header).toBe(`t=${T},v1=${MAC_ONE},v1=${MAC_TWO}`);
    expect(verifyWebhookSignature(header, BODY, 'whsec_one', 300, T)).toBe(true);
    expect(verifyWebhookSignature(header, BODY, 'whsec_two', 300, T)).toBe(true);
    expect(verifyWebhookSignature(header, BODY, 'whsec_three', 300, T)).toBe(false);
  });

  it('a genuine signature verifies within the tolerance on either side', () => {
    const header = signWebhook(BODY, ['whsec_one'], T);
    expect(verifyWebhookSignature(header, BODY, 'whsec_one', 300, T + 300)).toBe(true);
    expect(verifyWebhookSignature(header, BODY, 'whsec_one', 300, T - 300)).toBe(true);
  });

  it('an old or future-dated signature is refused', () => {
    const header = signWebhook(BODY, ['whsec_one'], T);
    expect(verifyWebhookSignature(header, BODY, 'whsec_one', 300, T + 301)).toBe(false);
    expect(verifyWebhookSignature(header, BODY, 'whsec_one', 300, T - 301)).toBe(false);
  });

  it('a changed body, secret or timestamp is refused', () => {
    const header = signWebhook(BODY, ['whsec_one'], T);
    expect(verifyWebhookSignature(header, BODY.replace('P1', 'P2'), 'whsec_one', 300, T)).toBe(false);
    expect(verifyWebhookSignature(header, `${BODY} `, 'whsec_one', 300, T)).toBe(false);
    expect(verifyWebhookSignature(header, BODY, 'whsec_on', 300, T)).toBe(false);
    expect(verifyWebhookSignature(header.replace(`t=${T}`, `t=${T + 1}`), BODY, 'whsec_one', 300, T)).toBe(false);
  });

  it('malformed headers are refused, unknown schemes ignored', () => {
    for (const bad of ['', 'garbage', `v1=${MAC_ONE}`, `t=abc,v1=${MAC_ONE}`, `t=${T},t=${T},v1=${MAC_ONE}`, `t=${T}`, `t=${T},v1=${MAC_ONE.slice(2)}`]) {
      expect(verifyWebhookSignature(bad, BODY, 'whsec_one', 300, T), bad).toBe(false);
    }
    expect(verifyWebhookSignature(`t=${T}, v0=abc , v1=${MAC_ONE.toUpperCase()}`, BODY, 'whsec_one', 300, T)).toBe(true);
    expect(parseSignatureHeader(`t=${T},v2=xyz,v1=${MAC_ONE}`)?.v1).toHaveLength(1);
  });

  it('signing needs a secret and a valid time', () => {
    expect(() => signWebhook(BODY, [], T)).toThrow(RangeError);
    expect(() => signWebhook(BODY, [''], T)).toThrow(RangeError);
    expect(() => signWebhook(BODY, ['s'], 1.5)).toThrow(RangeError);
  });
});
