// An independent deriver: @bitcoinerlab/descriptors (bitcoinjs-lib, checked against Bitcoin Core's descriptor
// fixtures) and the `bip32` package derive fresh random wallets of every accepted shape; satgate must give the same
// addresses. bitcoinjs' BIP32 costs milliseconds per child, so each index's child keys are derived once and given to
// bitcoinerlab as hex keys for every shape that uses them (bitcoinerlab still sorts, builds and encodes); a shorter run
// per shape goes through bitcoinerlab's own xpub, origin and `<0;1>/*` handling end to end.
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Output, networks } from '@bitcoinerlab/descriptors';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as ecc from '@bitcoinerlab/secp256k1';
import { keyOf, type WalletKey } from '../wallet-key.ts';

const bip32 = BIP32Factory(ecc);
const ADDRESSES_PER_SHAPE = 1000; // half receive, half change
const END_TO_END = 10;

interface Shape {
  name: string;
  cosigners: number;
  /** The descriptor around key expressions. */
  wrap: (keys: string[]) => string;
  /** Addresses compared (ADDRESSES_PER_SHAPE unless said). */
  count?: number;
}

const ms = (name: string, k: number) => (keys: string[]) => `${name}(${k},${keys.join(',')})`;
// Every accepted shape. sh(sortedmulti) runs a tenth of the addresses for time: its sorting is that of the other
// sortedmulti shapes, its P2SH wrapper that of sh(multi).
const SHAPES: Shape[] = [
  { name: 'pkh', cosigners: 1, wrap: ([k]) => `pkh(${k})` },
  { name: 'sh(wpkh)', cosigners: 1, wrap: ([k]) => `sh(wpkh(${k}))` },
  { name: 'wpkh', cosigners: 1, wrap: ([k]) => `wpkh(${k})` },
  { name: 'tr', cosigners: 1, wrap: ([k]) => `tr(${k})` },
  { name: 'wsh(sortedmulti 2-of-3)', cosigners: 3, wrap: (keys) => `wsh(${ms('sortedmulti', 2)(keys)})` },
  { name: 'sh(wsh(sortedmulti 2-of-3))', cosigners: 3, wrap: (keys) => `sh(wsh(${ms('sortedmulti', 2)(keys)}))` },
  { name: 'wsh(multi 2-of-3)', cosigners: 3, wrap: (keys) => `wsh(${ms('multi', 2)(keys)})` },
  { name: 'sh(multi 2-of-3)', cosigners: 3, wrap: (keys) => `sh(${ms('multi', 2)(keys)})` },
  { name: 'sh(sortedmulti 2-of-3)', cosigners: 3, wrap: (keys) => `sh(${ms('sortedmulti', 2)(keys)})`, count: 100 },
];

function randomAccount(): { xpub: string; node: BIP32Interface; origin: string } {
  const master = bip32.fromSeed(randomBytes(32));
  const account = master.derivePath("m/48'/0'/0'/2'").neutered();
  const fp = Buffer.from(master.fingerprint).toString('hex');
  return { xpub: account.toBase58(), node: account, origin: `[${fp}/48h/0h/0h/2h]` };
}

const accounts = [randomAccount(), randomAccount(), randomAccount()];
const half = ADDRESSES_PER_SHAPE / 2;
// Each account's child keys per branch and index, derived by bitcoinjs' bip32 once for all shapes.
const children = accounts.map((a) => [0, 1].map((branch) => {
  const node = a.node.derive(branch);
  return Array.from({ length: half }, (_, i) => Buffer.from(node.derive(i).publicKey).toString('hex'));
}));

describe('satgate and @bitcoinerlab/descriptors derive the same addresses', () => {
  it.each(SHAPES)('$name: receive and change', async (shape) => {
    const used = accounts.slice(0, shape.cosigners);
    const descriptor = shape.wrap(used.map((a) => `${a.origin}${a.xpub}/<0;1>/*`));
    const key: WalletKey = keyOf({ descriptor }, 'mainnet');
    let compared = 0;
    const perBranch = (shape.count ?? ADDRESSES_PER_SHAPE) / 2;
    for (const branch of [0, 1] as const) {
      for (let i = 0; i < perBranch; i++) {
        const hexKeys = used.map((_, c) => {
          const k = children[c]![branch]![i]!;
          return shape.name === 'tr' ? k.slice(2) : k;
        });
        const theirs = new Output({ descriptor: shape.wrap(hexKeys), network: networks.bitcoin }).getAddress();
        const ours = branch === 0 ? key.receive(i) : key.change(i);
        if (ours.address !== theirs) expect(`${shape.name} ${branch}/${i}: ${ours.address}`).toBe(`${shape.name} ${branch}/${i}: ${theirs}`);
        compared++;
        // Let the test runner's worker talk to its parent: a long synchronous loop makes it time out.
        if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
      }
      // End to end: bitcoinerlab reads the xpubs, origins and the multipath step itself.
      for (let i = 0; i < END_TO_END; i++) {
        const theirs = new Output({ descriptor, index: i * 37, change: branch, network: networks.bitcoin }).getAddress();
        expect((branch === 0 ? key.receive(i * 37) : key.change(i * 37)).address).toBe(theirs);
      }
    }
    expect(compared).toBe(shape.count ?? ADDRESSES_PER_SHAPE);
    // The canonical descriptor satgate writes is one bitcoinerlab reads to the same first address.
    expect(new Output({ descriptor: key.describe(), index: 0, change: 0, network: networks.bitcoin }).getAddress()).toBe(key.receive(0).address);
  });
});
