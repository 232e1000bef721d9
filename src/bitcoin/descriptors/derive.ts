/** The outputs a parsed descriptor describes: keys and scripts at one index of one multipath branch. */
import type { HDKey } from '@scure/bip32';
import { ChildKeyDeriver } from '../child-key.ts';
import { OUTPUT_KINDS, type OutputSpend } from '../output-kinds.ts';
import type { Descriptor } from './parse.ts';
import type { KeyExpression } from './key-expression.ts';

/** One cosigner's key at an index, with where it sits below its master (BIP32 derivation for PSBTs). */
export interface DerivedKey {
  readonly publicKey: Uint8Array;
  readonly fingerprint: number;
  readonly path: readonly number[];
}

export interface DescriptorOutput extends OutputSpend {
  /** One per key, in the descriptor's order. */
  readonly keys: readonly DerivedKey[];
}

// The node above the wildcard, per key and branch, with a deriver that keeps its decoded point.
const parents = new WeakMap<KeyExpression, Map<number, { deriver: ChildKeyDeriver; hd: HDKey }>>();

function parentOf(key: KeyExpression, branch: number): { deriver: ChildKeyDeriver; hd: HDKey } {
  let byBranch = parents.get(key);
  if (!byBranch) parents.set(key, (byBranch = new Map()));
  const cached = byBranch.get(branch);
  if (cached) return cached;
  let hd = key.xpub!.hd;
  for (const step of key.steps) hd = hd.deriveChild(typeof step === 'number' ? step : step[branch]!);
  const entry = { deriver: new ChildKeyDeriver(hd.publicKey!, hd.chainCode!), hd };
  byBranch.set(branch, entry);
  return entry;
}

/** The steps from the key to the index, with the branch chosen. */
export function stepsTo(key: KeyExpression, branch: number, index?: number): number[] {
  const steps = key.steps.map((s) => (typeof s === 'number' ? s : s[branch]!));
  return key.wildcard && index !== undefined ? [...steps, index] : steps;
}

/** One key of a descriptor at (branch, index). Without an origin the key is its own origin. */
export function deriveKey(key: KeyExpression, branch: number, index: number): DerivedKey {
  if (!key.xpub) {
    const fingerprint = key.origin?.fingerprint ?? 0;
    return { publicKey: key.publicKey!, fingerprint, path: key.origin?.path ?? [] };
  }
  const parent = parentOf(key, branch);
  const publicKey = key.wildcard ? parent.deriver.publicKeyAt(index) : parent.hd.publicKey!;
  const below = stepsTo(key, branch, index);
  const origin = key.origin ?? { fingerprint: key.xpub.hd.fingerprint, path: [] };
  return { publicKey, fingerprint: origin.fingerprint, path: [...origin.path, ...below] };
}

/** The output at `index` on multipath branch `branch` (0 when the descriptor has no multipath step). */
export function deriveOutput(descriptor: Descriptor, branch: number, index: number): DescriptorOutput {
  if (branch < 0 || branch >= descriptor.multipath) throw new RangeError(`the descriptor has ${descriptor.multipath} branch(es)`);
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new RangeError('an index is an integer from 0 to 2^31-1');
  const keys = descriptor.keys.map((k) => deriveKey(k, branch, index));
  const row = OUTPUT_KINDS[descriptor.kind];
  // tr() takes an x-only hex key as it is; the table's builder takes a compressed key and drops its parity byte.
  const material = keys.map((k) => (k.publicKey.length === 32 ? Uint8Array.of(0x02, ...k.publicKey) : k.publicKey));
  return { ...row.spend(material, descriptor.policy), keys };
}
