import { describe, it, expect } from 'vitest';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { parseBlock, parseBlockHeader } from './raw-block.ts';
import { RawParseError, wtxidOf } from './raw-tx.ts';
import {
  coinbaseParts,
  hash256,
  merkleRoot,
  serializeBlock,
  serializeHeader,
  serializeTx,
  toDisplayHex,
  witnessCommitment,
} from '../devchain/block-builder.ts';
import vectors from '../../test/vectors/raw-blocks.json' with { type: 'json' };

const LOOSE = { allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true };

describe('parseBlock', () => {
  for (const v of vectors.blocks) {
    it(`reads the ${v.name} with its known hash and coinbase txid`, () => {
      const block = parseBlock(hex.decode(v.hex));
      expect(block.header.hash).toBe(v.hash);
      expect(block.header.prevHash).toBe('00'.repeat(32));
      expect(block.header.merkleRoot).toBe(vectors.coinbaseTxid);
      expect(block.header.time).toBe(v.time);
      expect(block.header.bits).toBe(v.bits);
      expect(block.header.nonce).toBe(v.nonce);
      expect(block.header.version).toBe(1);
      expect(block.txs).toHaveLength(1);
      const cb = block.txs[0]!;
      expect(cb.txid).toBe(vectors.coinbaseTxid);
      expect(cb.coinbase).toBe(true);
      expect(cb.outputs[0]!.value).toBe(5_000_000_000n);
      expect(cb.outputs[0]!.script).toHaveLength(67);
      expect(cb.txid).toBe(Transaction.fromRaw(cb.bytes, LOOSE).id);
    });
  }

  it('walks a block mixing segwit and legacy transactions and matches its merkle root', () => {
    const spend = serializeTx({
      inputs: [{ prevTxid: 'ab'.repeat(32), vout: 1, witness: [new Uint8Array(72), new Uint8Array(33)] }],
      outputs: [
        { value: 12_345n, script: hex.decode('0014' + '33'.repeat(20)) },
        { value: 99n, script: hex.decode('a914' + '44'.repeat(20) + '87') },
      ],
    });
    const legacy = serializeTx({
      inputs: [{ prevTxid: 'cd'.repeat(32), vout: 7, scriptSig: new Uint8Array(107) }],
      outputs: [{ value: 1n, script: hex.decode('76a914' + '55'.repeat(20) + '88ac') }],
    });
    const txs = [spend, legacy];
    const parsedTxs = txs.map((t) => Transaction.fromRaw(t, LOOSE));
    const commitment = witnessCommitment(parsedTxs.map(wtxid));
    const coinbase = serializeTx(coinbaseParts({ height: 500, value: 1n, script: Uint8Array.from([0x51]), witnessCommitment: commitment }));
    const all = [coinbase, ...txs];
    const cbTxid = Transaction.fromRaw(coinbase, LOOSE).id;
    const root = merkleRoot([cbTxid, ...parsedTxs.map((t) => t.id)]);
    const header = serializeHeader({ version: 0x20000000, prevHash: '77'.repeat(32), merkleRoot: root, time: 1_700_000_000, bits: 0x207fffff, nonce: 42 });
    const block = parseBlock(serializeBlock(header, all));

    expect(block.header.merkleRoot).toBe(toDisplayHex(root));
    expect(block.header.prevHash).toBe('77'.repeat(32));
    expect(block.txs.map((t) => t.txid)).toEqual([cbTxid, ...parsedTxs.map((t) => t.id)]);
    expect(block.txs.map((t) => t.hasWitness)).toEqual([true, true, false]);
    expect(block.txs[1]!.inputs[0]).toEqual({ prevTxid: 'ab'.repeat(32), vout: 1 });
    expect(block.txs[1]!.outputs.map((o) => o.value)).toEqual([12_345n, 99n]);
    expect(wtxidOf(block.txs[1]!)).toBe(wtxid(parsedTxs[0]!));
    expect(block.txs[2]!.bytes).toEqual(legacy);
  });

  it('rejects a truncated block and a header that is too short', () => {
    const raw = hex.decode(vectors.blocks[0]!.hex);
    expect(() => parseBlock(raw.subarray(0, raw.length - 1))).toThrow(RawParseError);
    expect(() => parseBlockHeader(raw.subarray(0, 79))).toThrow(RawParseError);
    expect(() => parseBlock(Uint8Array.from([...raw.subarray(0, 80), 0]))).toThrow(RawParseError);
  });
});

function wtxid(t: Transaction): string {
  return toDisplayHex(hash256(t.toBytes(true, true)));
}
