import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import nacl from 'tweetnacl';
import { x25519, ed25519 } from '@noble/curves/ed25519.js';
import {
  decodeBase64,
  encodeBase64,
  generateWalletKeys,
  openClientPayload,
  PayloadError,
  publicKeysBase64,
  sealBalancePayload,
  walletKeysFromSecrets,
} from './payload-box.ts';
import { openBalancePayload, sealRequestPayload } from '../../test/support/payload-client.ts';
import { buildPayloadExample, EXAMPLE_INPUTS } from '../../test/vectors/generate-payload-example.ts';

const example = JSON.parse(readFileSync(new URL('../../test/vectors/payload-example.json', import.meta.url), 'utf8'));
const doc = readFileSync(new URL('../../docs/payload-format.md', import.meta.url), 'utf8');

function setup() {
  const server = generateWalletKeys();
  const pub = publicKeysBase64(server);
  const client = nacl.box.keyPair();
  return { server, pub, client };
}

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof PayloadError) return e.reason;
    throw e;
  }
  return 'no error';
}

describe('payload box', () => {
  it('a request sealed by a client opens to the same object', () => {
    const { server, pub, client } = setup();
    const order = { api_id: 'live_abc', local_currency: 'eur', order_amount: '12.50', note: 'ünïcode ✓' };
    const sealed = sealRequestPayload(order, pub.server_public_key, client.secretKey);
    expect(openClientPayload(sealed.payload, sealed.public_key_shared, server.boxSecretKey)).toEqual(order);
  });

  it('a balance payload verifies and opens on the client side', () => {
    const { server, pub, client } = setup();
    const balance = { api_id: 'live_abc', order_status: 'paid', tx: [{ txid: 'ab', confirmations: 2 }] };
    const payload = sealBalancePayload(balance, encodeBase64(client.publicKey), server.boxSecretKey, server.signSecretKey);
    expect(openBalancePayload(payload, pub.server_sign_public_key, pub.server_public_key, client.secretKey)).toEqual(balance);
  });

  it('flipping any single byte of a request payload is detected', () => {
    const { server, pub, client } = setup();
    const sealed = sealRequestPayload({ a: 1 }, pub.server_public_key, client.secretKey);
    const raw = Buffer.from(sealed.payload, 'base64');
    for (let i = 0; i < raw.length; i++) {
      const bad = Buffer.from(raw);
      bad[i]! ^= 0x01;
      expect(reason(() => openClientPayload(bad.toString('base64'), sealed.public_key_shared, server.boxSecretKey))).toBe('decrypt');
    }
  });

  it('flipping any single byte of a balance payload fails the signature check', () => {
    const { server, pub, client } = setup();
    const payload = sealBalancePayload({ a: 1 }, encodeBase64(client.publicKey), server.boxSecretKey, server.signSecretKey);
    const raw = Buffer.from(payload, 'base64');
    for (let i = 0; i < raw.length; i++) {
      const bad = Buffer.from(raw);
      bad[i]! ^= 0x80;
      expect(() => openBalancePayload(bad.toString('base64'), pub.server_sign_public_key, pub.server_public_key, client.secretKey)).toThrow(
        /signature/,
      );
    }
  });

  it('a payload sealed to another wallet, or claimed for another client key, does not open', () => {
    const { server, client } = setup();
    const other = generateWalletKeys();
    const sealed = sealRequestPayload({ a: 1 }, publicKeysBase64(other).server_public_key, client.secretKey);
    expect(reason(() => openClientPayload(sealed.payload, sealed.public_key_shared, server.boxSecretKey))).toBe('decrypt');
    const stranger = encodeBase64(nacl.box.keyPair().publicKey);
    expect(reason(() => openClientPayload(sealed.payload, stranger, other.boxSecretKey))).toBe('decrypt');
  });

  it('a balance payload signed by another wallet is refused by the client', () => {
    const { server, pub, client } = setup();
    const other = generateWalletKeys();
    const payload = sealBalancePayload({ a: 1 }, encodeBase64(client.publicKey), server.boxSecretKey, other.signSecretKey);
    expect(() => openBalancePayload(payload, pub.server_sign_public_key, pub.server_public_key, client.secretKey)).toThrow(/signature/);
  });

  it('malformed inputs are refused with the reason', () => {
    const { server, pub, client } = setup();
    const sealed = sealRequestPayload({ a: 1 }, pub.server_public_key, client.secretKey);
    const key = sealed.public_key_shared;
    const box = (json: string) => {
      const nonce = nacl.randomBytes(24);
      const b = nacl.box(new TextEncoder().encode(json), nonce, server.boxPublicKey, client.secretKey);
      return Buffer.concat([nonce, b]).toString('base64');
    };
    expect(reason(() => openClientPayload('not base64!', key, server.boxSecretKey))).toBe('base64');
    expect(reason(() => openClientPayload(sealed.payload.replace(/=*$/, ''), key, server.boxSecretKey))).toBe('base64');
    expect(reason(() => openClientPayload(sealed.payload, key.slice(0, -4) + 'AAB=', server.boxSecretKey))).toBe('base64');
    expect(reason(() => openClientPayload(sealed.payload, encodeBase64(new Uint8Array(31)), server.boxSecretKey))).toBe('length');
    expect(reason(() => openClientPayload(sealed.payload, encodeBase64(new Uint8Array(32)), server.boxSecretKey))).toBe('key');
    expect(reason(() => openClientPayload(encodeBase64(new Uint8Array(39)), key, server.boxSecretKey))).toBe('length');
    expect(reason(() => openClientPayload(encodeBase64(new Uint8Array(70_000)), key, server.boxSecretKey))).toBe('length');
    expect(reason(() => openClientPayload(box('[1,2]'), key, server.boxSecretKey))).toBe('json');
    expect(reason(() => openClientPayload(box('null'), key, server.boxSecretKey))).toBe('json');
    expect(reason(() => openClientPayload(box('{"a":'), key, server.boxSecretKey))).toBe('json');
    expect(reason(() => openClientPayload(box('{}'), key, server.boxSecretKey))).toBe('no error');
  });

  it('wallet keys rebuild from their stored secrets', () => {
    const keys = generateWalletKeys();
    expect(walletKeysFromSecrets(keys.boxSecretKey, keys.signSecretKey)).toEqual(keys);
    expect(walletKeysFromSecrets(keys.boxSecretKey, keys.signSecretKey.subarray(0, 32))).toEqual(keys);
    expect(decodeBase64(publicKeysBase64(keys).server_public_key, 'k')).toEqual(keys.boxPublicKey);
  });
});

describe('payload worked example (docs/payload-format.md)', () => {
  it('the stored example reproduces byte for byte', () => {
    expect(buildPayloadExample()).toEqual(example);
  });

  it('the example public keys match an independent X25519 and Ed25519 implementation', () => {
    expect(encodeBase64(x25519.getPublicKey(EXAMPLE_INPUTS.serverBoxSecretKey))).toBe(example.server_public_key);
    expect(encodeBase64(x25519.getPublicKey(EXAMPLE_INPUTS.clientBoxSecretKey))).toBe(example.public_key_shared);
    expect(encodeBase64(ed25519.getPublicKey(EXAMPLE_INPUTS.serverSignSeed))).toBe(example.server_sign_public_key);
  });

  it('the example opens in both directions', () => {
    const server = walletKeysFromSecrets(EXAMPLE_INPUTS.serverBoxSecretKey, EXAMPLE_INPUTS.serverSignSeed);
    expect(JSON.stringify(openClientPayload(example.request.payload, example.public_key_shared, server.boxSecretKey))).toBe(
      example.request.plaintext,
    );
    const opened = openBalancePayload(
      example.response.payload,
      example.server_sign_public_key,
      example.server_public_key,
      EXAMPLE_INPUTS.clientBoxSecretKey,
    );
    expect(JSON.stringify(opened)).toBe(example.response.plaintext);
  });

  it('the document shows the same keys, plaintexts and payloads', () => {
    for (const value of [
      example.server_public_key,
      example.server_sign_public_key,
      example.public_key_shared,
      example.server_box_secret_key_hex,
      example.server_sign_seed_hex,
      example.client_box_secret_key_hex,
      example.request.nonce_hex,
      example.request.plaintext,
      example.request.payload,
      example.response.nonce_hex,
      example.response.plaintext,
      example.response.payload,
    ]) {
      expect(doc).toContain(value);
    }
  });
});
