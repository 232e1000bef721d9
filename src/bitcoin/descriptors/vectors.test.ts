// The published vectors of BIP380-383, 386 and 389 (test/vectors/bip*.json, regenerated from the BIPs' text by
// test/vectors/descriptor-vectors-regenerate.mjs). A valid vector in a shape satgate accepts must give the BIP's
// scripts; one outside them (private keys, pk(), raw(), bare multisig, script trees…) must be refused by name.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseDescriptor, splitChecksum } from './parse.ts';
import { parseKeyExpression } from './key-expression.ts';
import { deriveOutput } from './derive.ts';
import { DescriptorError } from './errors.ts';

const load = (name: string) => JSON.parse(readFileSync(new URL(`../../../test/vectors/${name}`, import.meta.url), 'utf8'));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

interface Valid {
  descriptor: string;
  scripts: string[];
}
interface Invalid {
  description: string;
  descriptor: string;
}

function reasonOf(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (err) {
    if (err instanceof DescriptorError) return err.reason;
    throw err;
  }
}

// Refusals a published valid vector may meet: satgate's limits, not errors in the vector.
const POLICY_REFUSALS = ['private-key', 'unsupported', 'uncompressed-key', 'hardened-step'];

function checkValid(v: Valid): 'derived' | string {
  let d;
  try {
    d = parseDescriptor(v.descriptor);
  } catch (err) {
    if (!(err instanceof DescriptorError)) throw err;
    expect(POLICY_REFUSALS, `${v.descriptor}: ${err.message}`).toContain(err.reason);
    return err.reason;
  }
  const scripts = v.scripts.map((_, i) => hex(deriveOutput(d, 0, i).script));
  expect(scripts).toEqual(v.scripts);
  return 'derived';
}

describe('BIP380 checksums', () => {
  const { source, checksums } = load('bip380.json');
  it('names its source', () => expect(source).toMatch(/^BIP 380, https:\/\/github.com\/bitcoin\/bips\//));
  it.each(checksums as { description: string; descriptor: string; valid: boolean }[])('$description', ({ descriptor, valid }) => {
    if (valid) {
      const { body, checksum } = splitChecksum(descriptor);
      expect(`${body}#${checksum}`).toBe('raw(deadbeef)#89f8spxm');
    } else {
      expect(['bad-checksum', 'bad-character']).toContain(reasonOf(() => splitChecksum(descriptor)));
    }
  });
});

describe('BIP380 key expressions', () => {
  const { validKeys, invalidKeys } = load('bip380.json');
  it.each(validKeys as { description: string; key: string }[])('valid: $description', ({ key }) => {
    // Valid in the BIP; satgate takes the public forms and refuses private and uncompressed keys and hardened steps.
    const reason = reasonOf(() => parseKeyExpression(key));
    if (/private key/i.test(key) || /^(\[[^\]]*\])?([xt]prv|[5KLc9])/.test(key)) expect(reason).toBe('private-key');
    else if (/^(\[[^\]]*\])?04/.test(key)) expect(reason).toBe('uncompressed-key');
    else if (/\/\d+h|\*h/.test(key.replace(/^\[[^\]]*\]/, ''))) expect(reason).toBe('hardened-step');
    else expect(reason).toBeUndefined();
  });
  it.each(invalidKeys as { description: string; key: string }[])('invalid: $description', ({ key }) => {
    expect(reasonOf(() => parseKeyExpression(key))).toBeDefined();
  });
});

for (const bip of ['bip381', 'bip382', 'bip383', 'bip386']) {
  describe(`${bip.toUpperCase()} descriptors`, () => {
    const { source, valid, invalid } = load(`${bip}.json`);
    it('names its source', () => expect(source).toMatch(/^BIP 38\d, https:\/\/github.com\/bitcoin\/bips\//));
    it.each(valid as Valid[])('valid: $descriptor', (v) => {
      checkValid(v);
    });
    it.each(invalid as Invalid[])('invalid: $description', ({ descriptor }) => {
      expect(reasonOf(() => parseDescriptor(descriptor))).toBeDefined();
    });
  });
}

describe('the vectors satgate derives', () => {
  it('include every public-key vector of an accepted shape', () => {
    const derived = ['bip381', 'bip382', 'bip383', 'bip386'].flatMap((b) => (load(`${b}.json`).valid as Valid[]).filter((v) => checkValid(v) === 'derived').map((v) => v.descriptor.slice(0, 30)));
    expect(derived).toEqual([
      'pkh([deadbeef/1/2\'/3/4\']03a34b',
      'pkh([deadbeef/1/2h/3/4h]03a34b',
      'pkh([bd16bee5/2147483647h]xpub',
      'wpkh(03a34b99f22c790c4e36b2b3c',
      'wpkh([ffffffff/13\']xpub69H7F5d',
      'sh(wsh(multi(16,03669b8afcec80',
      'tr(a34b99f22c790c4e36b2b3c2c35',
    ]);
  });
});

describe('BIP389 multipath descriptors', () => {
  const { source, valid, invalid } = load('bip389.json');
  it('names its source', () => expect(source).toMatch(/^BIP 389, /));
  it.each(valid as { descriptor: string; expansions: string[] }[])('valid: $descriptor', ({ descriptor, expansions }) => {
    const reason = reasonOf(() => parseDescriptor(descriptor));
    if (reason !== undefined) {
      expect(POLICY_REFUSALS).toContain(reason);
      for (const e of expansions) expect(reasonOf(() => parseDescriptor(e))).toBe(reason);
      return;
    }
    const d = parseDescriptor(descriptor);
    expect(d.multipath).toBe(expansions.length);
    expansions.forEach((text, branch) => {
      const single = parseDescriptor(text);
      for (const i of [0, 1, 7]) expect(hex(deriveOutput(d, branch, i).script)).toBe(hex(deriveOutput(single, 0, i).script));
    });
  });
  it.each(invalid as Invalid[])('invalid: $description', ({ descriptor }) => {
    expect(reasonOf(() => parseDescriptor(descriptor))).toBeDefined();
  });
});
