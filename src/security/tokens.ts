import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new random secret token (URL-safe base64, 32 bytes of entropy by default). */
export function newToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** The stored form of a token: SHA-256 hex. Tokens carry full entropy, so a fast hash suffices. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares two strings in constant time (for their common length). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
