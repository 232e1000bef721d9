// Address derivation micro-benchmark (issue 16): microseconds per receiving address, @scure/bip32's
// deriveChild (constant-time multiply, parent point decoded on every call) against the ChildKeyDeriver
// (parent decoded once, variable-time multiply of the public tweak), and the whole address (key + script
// + bech32) as the issuer derives it, alone and in a refill's run (one shared field inversion). Single
// thread; read the ratio, the absolute figures move with load.
// Run: node bin/run-ts.js bench/derivation.ts
import { HDKey } from '@scure/bip32';
import { ChildKeyDeriver } from '../src/bitcoin/child-key.ts';
import { parseExtendedPublicKey } from '../src/bitcoin/extended-key.ts';
import { deriveReceiveAddress, deriveReceiveAddresses } from '../src/bitcoin/receive-address.ts';
import { addressFromScript, scriptForPublicKey } from '../src/bitcoin/address.ts';

const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const COUNT = 2_000;

function time(label: string, fn: (i: number) => unknown): number {
  for (let i = 0; i < 200; i++) fn(1_000_000 + i); // warm-up (JIT)
  const started = process.hrtime.bigint();
  for (let i = 0; i < COUNT; i++) fn(i);
  const us = Number(process.hrtime.bigint() - started) / 1_000 / COUNT;
  console.log(`${label.padEnd(58)} ${us.toFixed(1).padStart(7)} µs`);
  return us;
}

const key = parseExtendedPublicKey(ZPUB);
const chain = key.hd.deriveChild(0);
const deriver = new ChildKeyDeriver(chain.publicKey!, chain.chainCode!);
const pub = new HDKey({ publicKey: chain.publicKey!, chainCode: chain.chainCode! });

console.log(`address derivation, ${COUNT} addresses each, node ${process.version}`);
const before = time('@scure/bip32 deriveChild (the previous path)', (i) => pub.deriveChild(i).publicKey);
const after = time('ChildKeyDeriver.publicKeyAt', (i) => deriver.publicKeyAt(i));
const one = deriver.publicKeyAt(0);
time('script + bech32 address of an already derived key', () => addressFromScript(scriptForPublicKey(one, 'p2wpkh'), 'mainnet'));
time('whole receiving address (deriveReceiveAddress, now)', (i) => deriveReceiveAddress(key, i, 'p2wpkh', 'mainnet'));
const RUN = 200;
deriveReceiveAddresses(key, 1_000_000, RUN, 'p2wpkh', 'mainnet'); // warm-up
const runStarted = process.hrtime.bigint();
for (let from = 0; from < COUNT; from += RUN) deriveReceiveAddresses(key, from, RUN, 'p2wpkh', 'mainnet');
const perAddressInRun = Number(process.hrtime.bigint() - runStarted) / 1_000 / COUNT;
console.log(`${`runs of ${RUN} (deriveReceiveAddresses, a pool refill), per address`.padEnd(58)} ${perAddressInRun.toFixed(1).padStart(7)} µs`);
console.log(`child key: ${(before / after).toFixed(1)}× faster`);
