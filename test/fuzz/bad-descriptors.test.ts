// The fuzz suite's descriptor generators are what they claim: the base descriptors are accepted, so every mutation
// is near-valid, and every mutation is refused as a wallet description (the server answers those with 102).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWalletText } from '../../src/bitcoin/wallet-key.ts';
import { DescriptorError } from '../../src/bitcoin/descriptors/errors.ts';
import { badDescriptors, validDescriptor } from './bad-descriptors.ts';

describe('generated descriptors for add_pub', () => {
  it('the base descriptors, before a mutation, are accepted', () => {
    fc.assert(fc.property(validDescriptor, (d) => {
      expect(parseWalletText(d)).toBeDefined();
    }), { numRuns: 200 });
  });

  it('every near-valid descriptor is refused with a reason', () => {
    fc.assert(fc.property(badDescriptors, ({ text, why }) => {
      let error: unknown;
      try {
        parseWalletText(text);
      } catch (e) {
        error = e;
      }
      expect(error, `${why}: ${text}`).toBeInstanceOf(DescriptorError);
    }), { numRuns: 400 });
  });
});
