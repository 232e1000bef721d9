// The encrypted order payload of INTERFACE 2.4 (byte layout: docs/payload-format.md).
// Request:  payload = base64( nonce(24) || box(json, nonce, serverBoxPublic, clientBoxSecret) )
// Response: payload = base64( sig(64) || nonce(24) || box(json, nonce, clientBoxPublic, serverBoxSecret) )
//           sig = Ed25519 detached signature over (nonce || box); encrypt-then-sign, so anyone
//           holding server_sign_public_key can check the origin and only the client can read it.

import nacl from 'tweetnacl';
import { ReasonError } from '../core/errors.ts';

/** A wallet's payload keys: X25519 for NaCl box, Ed25519 for signatures. */
export interface WalletKeys {
  boxPublicKey: Uint8Array;
  boxSecretKey: Uint8Array;
  signPublicKey: Uint8Array;
  /** 64 bytes as tweetnacl uses them: seed(32) || public key(32). */
  signSecretKey: Uint8Array;
}

export type PayloadErrorReason = 'base64' | 'length' | 'key' | 'decrypt' | 'json';

/** A payload or key that cannot be used; `reason` says which check failed. */
export class PayloadError extends ReasonError<PayloadErrorReason> {}

export const NONCE_BYTES = nacl.box.nonceLength; // 24
export const KEY_BYTES = nacl.box.publicKeyLength; // 32
export const SIGNATURE_BYTES = nacl.sign.signatureLength; // 64
/** Largest decoded request payload accepted (bytes). */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Strict standard-alphabet, padded, canonical base64 decoding; throws PayloadError('base64'). */
export function decodeBase64(text: string, what: string): Uint8Array {
  if (typeof text !== 'string' || !BASE64.test(text)) throw new PayloadError('base64', `${what} is not base64`);
  const bytes = Buffer.from(text, 'base64');
  // Non-zero padding bits would let two strings name the same bytes.
  if (bytes.toString('base64') !== text) throw new PayloadError('base64', `${what} is not canonical base64`);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Fresh random wallet keys. */
export function generateWalletKeys(): WalletKeys {
  const box = nacl.box.keyPair();
  const sign = nacl.sign.keyPair();
  return { boxPublicKey: box.publicKey, boxSecretKey: box.secretKey, signPublicKey: sign.publicKey, signSecretKey: sign.secretKey };
}

/** Rebuilds wallet keys from stored secrets (box secret 32 bytes; sign seed 32 or secret key 64 bytes). */
export function walletKeysFromSecrets(boxSecretKey: Uint8Array, signSecret: Uint8Array): WalletKeys {
  if (boxSecretKey.length !== KEY_BYTES) throw new RangeError('box secret key must be 32 bytes');
  if (signSecret.length !== 32 && signSecret.length !== 64) throw new RangeError('sign secret must be 32 or 64 bytes');
  const box = nacl.box.keyPair.fromSecretKey(boxSecretKey);
  const sign = nacl.sign.keyPair.fromSeed(signSecret.subarray(0, 32));
  return { boxPublicKey: box.publicKey, boxSecretKey: box.secretKey, signPublicKey: sign.publicKey, signSecretKey: sign.secretKey };
}

/** The public halves as handed out by POST /add_pub (base64). */
export function publicKeysBase64(keys: WalletKeys): { server_public_key: string; server_sign_public_key: string } {
  return { server_public_key: encodeBase64(keys.boxPublicKey), server_sign_public_key: encodeBase64(keys.signPublicKey) };
}

function sharedKey(peerPublicB64: string, boxSecretKey: Uint8Array): Uint8Array {
  const peer = decodeBase64(peerPublicB64, 'public_key_shared');
  if (peer.length !== KEY_BYTES) throw new PayloadError('length', `public_key_shared must be ${KEY_BYTES} bytes`);
  // A low-order client point gives an all-zero X25519 secret that anyone could compute.
  if (nacl.scalarMult(boxSecretKey, peer).every((b) => b === 0)) {
    throw new PayloadError('key', 'public_key_shared is a weak key');
  }
  return nacl.box.before(peer, boxSecretKey);
}

/** Checks that a client's `public_key_shared` is a key a balance result can be sealed to; throws PayloadError. */
export function checkClientPublicKey(clientPubB64: string, boxSecretKey: Uint8Array): void {
  sharedKey(clientPubB64, boxSecretKey);
}

/** Decrypts a client's request payload to its JSON object; throws PayloadError. */
export function openClientPayload(payloadB64: string, clientPubB64: string, boxSecretKey: Uint8Array): Record<string, unknown> {
  const key = sharedKey(clientPubB64, boxSecretKey);
  if (typeof payloadB64 !== 'string' || payloadB64.length > Math.ceil(MAX_PAYLOAD_BYTES / 3) * 4) {
    throw new PayloadError('length', 'payload is too large');
  }
  const raw = decodeBase64(payloadB64, 'payload');
  if (raw.length > MAX_PAYLOAD_BYTES) throw new PayloadError('length', 'payload is too large');
  if (raw.length < NONCE_BYTES + nacl.box.overheadLength) throw new PayloadError('length', 'payload is too short');
  const plain = nacl.box.open.after(raw.subarray(NONCE_BYTES), raw.subarray(0, NONCE_BYTES), key);
  if (!plain) throw new PayloadError('decrypt', 'payload does not decrypt with this key');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plain));
  } catch {
    throw new PayloadError('json', 'payload is not UTF-8 JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new PayloadError('json', 'payload is not a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** Encrypts `obj` to the client's key and signs it: base64(sig || nonce || box). `nonce` is for test vectors only. */
export function sealBalancePayload(
  obj: unknown,
  clientPubB64: string,
  boxSecretKey: Uint8Array,
  signSecretKey: Uint8Array,
  nonce: Uint8Array = nacl.randomBytes(NONCE_BYTES),
): string {
  if (nonce.length !== NONCE_BYTES) throw new RangeError('nonce must be 24 bytes');
  const key = sharedKey(clientPubB64, boxSecretKey);
  const boxed = nacl.box.after(new TextEncoder().encode(JSON.stringify(obj)), nonce, key);
  const signed = new Uint8Array(NONCE_BYTES + boxed.length);
  signed.set(nonce, 0);
  signed.set(boxed, NONCE_BYTES);
  const sig = nacl.sign.detached(signed, signSecretKey);
  const out = new Uint8Array(SIGNATURE_BYTES + signed.length);
  out.set(sig, 0);
  out.set(signed, SIGNATURE_BYTES);
  return encodeBase64(out);
}
