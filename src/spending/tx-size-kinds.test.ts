// The input sizes of the output-kinds table against transactions @scure/btc-signer really signs: the estimate is an
// upper bound, at most a byte or two above (ECDSA signatures are sometimes a byte shorter).
import { describe, expect, it } from 'vitest';
import { Transaction } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { OUTPUT_KINDS, type OutputKind } from '../bitcoin/output-kinds.ts';
import { txVsize } from './tx-size.ts';

const privs = [1, 2, 3].map((i) => Uint8Array.from({ length: 32 }, (_, j) => (j === 31 ? i : 0x33)));
const pubs = privs.map((p) => secp256k1.getPublicKey(p, true));
const PAY = Uint8Array.of(0x00, 20, ...new Uint8Array(20).fill(7));

function signedVsize(kind: OutputKind): number {
  const row = OUTPUT_KINDS[kind];
  const multisig = row.family === 'multisig';
  const spend = row.spend(multisig ? pubs : [pubs[0]!], { threshold: 2, sorted: false });
  const tx = new Transaction({ version: 2, lowR: true, allowLegacyWitnessUtxo: true });
  tx.addInput({
    txid: 'ab'.repeat(32),
    index: 0,
    witnessUtxo: { script: spend.script, amount: 100_000n },
    ...(spend.redeemScript ? { redeemScript: spend.redeemScript } : {}),
    ...(spend.witnessScript ? { witnessScript: spend.witnessScript } : {}),
    ...(spend.tapInternalKey ? { tapInternalKey: spend.tapInternalKey } : {}),
  });
  tx.addOutput({ script: PAY, amount: 90_000n });
  tx.addOutput({ script: spend.script, amount: 5_000n });
  for (const p of multisig ? privs.slice(0, 2) : [privs[0]!]) tx.signIdx(p, 0);
  tx.finalize();
  return tx.vsize;
}

describe('input sizes per output kind', () => {
  it.each(Object.keys(OUTPUT_KINDS) as OutputKind[])('%s: the estimate bounds a signed 1-in 2-out transaction', (kind) => {
    const row = OUTPUT_KINDS[kind];
    const spec = row.family === 'multisig' ? { kind, m: 2, n: 3 } : kind;
    const script = row.spend(row.family === 'multisig' ? pubs : [pubs[0]!], { threshold: 2, sorted: false }).script;
    const estimate = txVsize([spec], [PAY.length, script.length]);
    const actual = signedVsize(kind);
    expect(estimate).toBeGreaterThanOrEqual(actual);
    expect(estimate - actual).toBeLessThanOrEqual(1);
  });

  it('P2WSH 2-of-3 and P2TR key-path inputs weigh what the table’s comments say', () => {
    const w = (kind: OutputKind, m?: number, n?: number) => {
      const s = OUTPUT_KINDS[kind].inputSize(72, m, n);
      return s.base * 4 + s.witness;
    };
    expect(w('p2wsh-multisig', 2, 3) / 4).toBe(104.5);
    expect(w('p2sh-p2wsh-multisig', 2, 3) / 4).toBe(139.5);
    expect(w('p2tr') / 4).toBe(57.5);
    expect(w('p2sh-multisig', 2, 3) / 4).toBe(297);
    expect(w('p2wpkh') / 4).toBe(68);
  });
});
