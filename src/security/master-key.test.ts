import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { MasterKey } from './master-key.ts';

describe('MasterKey', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'satgate-mk-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first load creates the key file with mode 0600 and says it did', () => {
    const file = join(dir, 'nested', 'master.key');
    const { created } = MasterKey.loadOrCreate(file);
    expect(created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
  });

  it('a second load reads the same key back', () => {
    const file = join(dir, 'master.key');
    const first = MasterKey.loadOrCreate(file);
    const second = MasterKey.loadOrCreate(file);
    expect(second.created).toBe(false);
    const sealed = first.masterKey.seal('seed words');
    expect(second.masterKey.unseal(sealed).toString('utf8')).toBe('seed words');
  });

  it('seal and unseal round-trip strings and bytes', () => {
    const mk = MasterKey.fromBytes(new Uint8Array(32).fill(1));
    const bytes = new Uint8Array(64).map((_, i) => i);
    const sealedBytes = mk.seal(bytes);
    expect(sealedBytes.startsWith('v1:')).toBe(true);
    expect(new Uint8Array(mk.unseal(sealedBytes))).toEqual(bytes);
    expect(mk.unseal(mk.seal('')).toString('utf8')).toBe('');
    expect(mk.unseal(mk.seal('héllo wörld')).toString('utf8')).toBe('héllo wörld');
  });

  it('sealing the same secret twice gives different ciphertexts', () => {
    const mk = MasterKey.fromBytes(new Uint8Array(32).fill(1));
    expect(mk.seal('same')).not.toBe(mk.seal('same'));
  });

  it('a tampered ciphertext fails to unseal', () => {
    const mk = MasterKey.fromBytes(new Uint8Array(32).fill(1));
    const sealed = mk.seal('a secret of some length');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1] = raw[raw.length - 1]! ^ 0x01;
    expect(() => mk.unseal(`v1:${raw.toString('base64')}`)).toThrow();
    const tag = Buffer.from(sealed.slice(3), 'base64');
    tag[15] = tag[15]! ^ 0x80;
    expect(() => mk.unseal(`v1:${tag.toString('base64')}`)).toThrow();
  });

  it('another key cannot unseal', () => {
    const a = MasterKey.fromBytes(new Uint8Array(32).fill(1));
    const b = MasterKey.fromBytes(new Uint8Array(32).fill(2));
    expect(() => b.unseal(a.seal('secret'))).toThrow();
  });

  it('an unknown format or truncated secret is refused with a clear message', () => {
    const mk = MasterKey.fromBytes(new Uint8Array(32).fill(1));
    expect(() => mk.unseal('v2:abcd')).toThrow(/unknown sealed secret format/);
    expect(() => mk.unseal('v1:AAAA')).toThrow(/truncated/);
  });

  it('a malformed key file is refused with a message naming the file', () => {
    const file = join(dir, 'master.key');
    writeFileSync(file, 'not-a-key\n');
    expect(() => MasterKey.loadOrCreate(file)).toThrow(new RegExp(`master key file ${file} must hold 64 hex characters`));
    writeFileSync(file, 'ab'.repeat(31));
    expect(() => MasterKey.loadOrCreate(file)).toThrow(/64 hex characters/);
  });

  it('raw key bytes must be 32 long', () => {
    expect(() => MasterKey.fromBytes(new Uint8Array(16))).toThrow(/32 bytes/);
  });
});
