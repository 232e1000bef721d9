// The merchant's side of the encrypted order payload, written only from
// docs/payload-format.md, as an outside integrator would: tweetnacl for the box,
// @noble/curves for the Ed25519 check (a second, independent implementation).

import nacl from 'tweetnacl';
import { ed25519 } from '@noble/curves/ed25519.js';

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const unb64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));

/** Seals a request payload for POST /set_addr: returns the two body fields. */
export function sealRequestPayload(
  obj: object,
  serverPublicKeyB64: string,
  clientBoxSecretKey: Uint8Array,
  nonce: Uint8Array = nacl.randomBytes(24),
): { public_key_shared: string; payload: string } {
  const clientPublic = nacl.box.keyPair.fromSecretKey(clientBoxSecretKey).publicKey;
  const message = new TextEncoder().encode(JSON.stringify(obj));
  const boxed = nacl.box(message, nonce, unb64(serverPublicKeyB64), clientBoxSecretKey);
  const payload = new Uint8Array(24 + boxed.length);
  payload.set(nonce, 0);
  payload.set(boxed, 24);
  return { public_key_shared: b64(clientPublic), payload: b64(payload) };
}

/** Verifies the signature of a balance payload, then decrypts it; throws on any failure. */
export function openBalancePayload(
  payloadB64: string,
  serverSignPublicKeyB64: string,
  serverPublicKeyB64: string,
  clientBoxSecretKey: Uint8Array,
): Record<string, unknown> {
  const raw = unb64(payloadB64);
  if (raw.length < 64 + 24 + 16) throw new Error('balance payload too short');
  const signature = raw.subarray(0, 64);
  const signed = raw.subarray(64);
  if (!ed25519.verify(signature, signed, unb64(serverSignPublicKeyB64))) {
    throw new Error('balance payload signature does not verify');
  }
  const plain = nacl.box.open(signed.subarray(24), signed.subarray(0, 24), unb64(serverPublicKeyB64), clientBoxSecretKey);
  if (!plain) throw new Error('balance payload does not decrypt');
  return JSON.parse(new TextDecoder().decode(plain)) as Record<string, unknown>;
}
