import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { Transaction, RawTx as ScureRawTx } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { createRequire } from 'node:module';
import { parseTransaction, wtxidOf, RawParseError } from './raw-tx.ts';
import { serializeTx, type TxParts } from '../devchain/block-builder.ts';
import vectors from '../../test/vectors/raw-blocks.json' with { type: 'json' };

const require = createRequire(import.meta.url);
const bcoin = require('bcoin') as {
  TX: { fromRaw(b: Buffer): { txid(): string; wtxid(): string; getVirtualSize(): number } };
};

const bytesArb = (max: number) => fc.uint8Array({ maxLength: max });
const txArb: fc.Arbitrary<TxParts> = fc.record({
  version: fc.integer({ min: 1, max: 3 }),
  inputs: fc.array(
    fc.record({
      prevTxid: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => hex.encode(b)),
      vout: fc.nat({ max: 0xfffffffe }),
      scriptSig: bytesArb(300),
      sequence: fc.nat({ max: 0xffffffff }),
      witness: fc.option(fc.array(bytesArb(80), { maxLength: 3 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  outputs: fc.array(
    fc.record({ value: fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }), script: bytesArb(300) }),
    { minLength: 1, maxLength: 5 },
  ),
  locktime: fc.nat({ max: 0xffffffff }),
});

describe('parseTransaction', () => {
  it('reads the BIP143 segwit example with the txid, wtxid and vsize bcoin computes', () => {
    const v = vectors.segwitTx;
    const tx = parseTransaction(hex.decode(v.hex));
    expect(tx.txid).toBe(v.txid);
    expect(wtxidOf(tx)).toBe(v.wtxid);
    expect(tx.vsize).toBe(v.vsize);
    expect(tx.hasWitness).toBe(true);
    expect(tx.coinbase).toBe(false);
    expect(tx.inputs.map((i) => [i.prevTxid, i.vout])).toEqual([
      ['9f96ade4b41d5433f4eda31e1738ec2b36f6e7d1420d94a6af99801a88f7f7ff', 0],
      ['8ac60eb9575db5b2d987e29f301b5b819ea83a5c6579d282d189cc04b8e151ef', 1],
    ]);
    expect(tx.outputs.map((o) => o.value)).toEqual([112340000n, 223450000n]);
    expect(hex.encode(tx.outputs[0]!.script)).toBe('76a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac');
    expect(tx.locktime).toBe(17);
  });

  it('agrees with btc-signer and bcoin on arbitrary legacy and segwit transactions', () => {
    fc.assert(
      fc.property(txArb, (parts) => {
        const raw = serializeTx(parts);
        const ours = parseTransaction(raw);
        const scure = ScureRawTx.decode(raw);
        const reference = bcoin.TX.fromRaw(Buffer.from(raw));
        expect(ours.txid).toBe(reference.txid());
        expect(wtxidOf(ours)).toBe(reference.wtxid());
        expect(ours.vsize).toBe(reference.getVirtualSize());
        expect(ours.version).toBe(scure.version);
        expect(ours.locktime).toBe(scure.lockTime);
        expect(ours.hasWitness).toBe(scure.segwitFlag);
        expect(ours.inputs).toEqual(scure.inputs.map((i) => ({ prevTxid: hex.encode(i.txid), vout: i.index })));
        expect(ours.outputs.map((o) => [o.value, hex.encode(o.script)])).toEqual(
          scure.outputs.map((o) => [o.amount, hex.encode(o.script)]),
        );
        expect(ours.bytes).toEqual(raw);
      }),
      { numRuns: 300 },
    );
  });

  it('computes the same txid as btc-signer for a signed p2wpkh spend', () => {
    const tx = new Transaction();
    tx.addInput({
      txid: 'aa'.repeat(32),
      index: 3,
      witnessUtxo: { amount: 50_000n, script: hex.decode('0014' + '11'.repeat(20)) },
    });
    tx.addOutput({ amount: 40_000n, script: hex.decode('0014' + '22'.repeat(20)) });
    tx.updateInput(0, { finalScriptWitness: [new Uint8Array(71).fill(1), new Uint8Array(33).fill(2)] });
    const raw = tx.extract();
    const ours = parseTransaction(raw);
    expect(ours.txid).toBe(Transaction.fromRaw(raw).id);
    expect(ours.vsize).toBe(Transaction.fromRaw(raw).vsize);
  });

  it('recognises a coinbase transaction', () => {
    const raw = serializeTx({
      inputs: [{ prevTxid: '00'.repeat(32), vout: 0xffffffff, scriptSig: Uint8Array.from([1, 5, 0]) }],
      outputs: [{ value: 5_000_000_000n, script: Uint8Array.from([0x51]) }],
    });
    expect(parseTransaction(raw).coinbase).toBe(true);
  });

  it('rejects truncated bytes and trailing garbage', () => {
    const raw = hex.decode(vectors.segwitTx.hex);
    for (const cut of [0, 3, 10, 50, raw.length - 1]) {
      expect(() => parseTransaction(raw.subarray(0, cut))).toThrow(RawParseError);
    }
    expect(() => parseTransaction(Uint8Array.from([...raw, 0]))).toThrow(RawParseError);
  });

  it('reads output values above 2^53 exactly', () => {
    const raw = serializeTx({
      inputs: [{ prevTxid: '01'.repeat(32), vout: 0 }],
      outputs: [{ value: 0xffffffffffffffffn, script: new Uint8Array() }],
    });
    expect(parseTransaction(raw).outputs[0]!.value).toBe(0xffffffffffffffffn);
  });
});
