// A block's transactions rebuilt from Esplora's JSON (esplora-block-pages.ts) give back the network's bytes
// exactly (so the txid, and the Merkle root, come out right): legacy, segwit and coinbase transactions, a
// block of them; and a malformed page is the server's error, never a crash.
import { describe, expect, it } from 'vitest';
import { Transaction, p2pkh, p2wpkh } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { parseTransaction } from '../../bitcoin/raw-tx.ts';
import { parseBlock } from '../../bitcoin/raw-block.ts';
import { coinbaseParts, serializeTx } from '../../devchain/block-builder.ts';
import { esploraTxJson } from '../../../test/support/esplora-tx-json.ts';
import { BackendUnavailableError } from './light-backend.ts';
import { blockBytes, blockTxCount, pageTransactions, txBytesFromEsploraJson } from './esplora-block-pages.ts';

// Bitcoin's genesis coinbase: legacy, with the well-known txid.
const GENESIS_COINBASE =
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000';
const GENESIS_TXID = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';

const key = new Uint8Array(32).fill(3);
const pub = secp256k1.getPublicKey(key, true);

/** A signed transaction spending one P2WPKH and one P2PKH input (witness on one input only), with btc-signer's txid. */
function signed(kind: 'segwit' | 'legacy'): { hex: string; id: string } {
  const tx = new Transaction({ allowLegacyWitnessUtxo: true });
  const prev = 'aa'.repeat(32);
  if (kind === 'segwit') tx.addInput({ txid: prev, index: 1, witnessUtxo: { script: p2wpkh(pub).script, amount: 2_100_000_000_000_000n }, sequence: 0xfffffffd });
  // A legacy input: btc-signer needs the previous transaction itself.
  const legacyPrev = new Transaction();
  legacyPrev.addInput({ txid: 'bb'.repeat(32), index: 0 });
  legacyPrev.addOutput({ script: p2pkh(pub).script, amount: 70_000n });
  tx.addInput({ txid: legacyPrev.id, index: 0, nonWitnessUtxo: legacyPrev.toBytes(true, false) });
  // The largest value there can be (21 million BTC less a sat), where the inputs allow it.
  tx.addOutput({ script: p2wpkh(pub).script, amount: kind === 'segwit' ? 2_100_000_000_000_000n - 1n : 50_000n });
  tx.addOutput({ script: p2pkh(pub).script, amount: 12_345n });
  tx.sign(key);
  tx.finalize();
  return { hex: tx.hex, id: tx.id };
}

function roundTrip(hex: string) {
  const bytes = Buffer.from(hex, 'hex');
  const json = JSON.parse(JSON.stringify(esploraTxJson(bytes))) as unknown;
  const rebuilt = txBytesFromEsploraJson(json);
  return { bytes, json, rebuilt, txid: parseTransaction(rebuilt).txid };
}

describe('a transaction rebuilt from Esplora JSON', () => {
  it('is the genesis coinbase byte for byte, with its txid', () => {
    const { bytes, rebuilt, txid, json } = roundTrip(GENESIS_COINBASE);
    expect(rebuilt.equals(bytes)).toBe(true);
    expect(txid).toBe(GENESIS_TXID);
    expect(json).toMatchObject({ vin: [{ txid: '0'.repeat(64), vout: 4294967295, is_coinbase: true }] });
    expect((json as { vin: object[] }).vin[0]).not.toHaveProperty('witness');
  });

  it('is a legacy transaction byte for byte, without witness marker', () => {
    const tx = signed('legacy');
    const { bytes, rebuilt, txid } = roundTrip(tx.hex);
    expect(rebuilt.equals(bytes)).toBe(true);
    expect(parseTransaction(rebuilt).hasWitness).toBe(false);
    expect(txid).toBe(tx.id);
  });

  it('is a segwit transaction byte for byte (witness on one input, none on the other), with its txid', () => {
    const tx = signed('segwit');
    const { bytes, rebuilt, txid, json } = roundTrip(tx.hex);
    expect(rebuilt.equals(bytes)).toBe(true);
    expect(parseTransaction(rebuilt).hasWitness).toBe(true);
    expect(txid).toBe(tx.id);
    const vin = (json as { vin: { witness?: string[] }[] }).vin;
    expect(vin[0]!.witness).toHaveLength(2);
    expect(vin[1]).not.toHaveProperty('witness');
  });

  it('is a segwit coinbase (witness reserved value) byte for byte', () => {
    const parts = coinbaseParts({ height: 500, value: 625_000_000n, script: p2wpkh(pub).script, witnessCommitment: new Uint8Array(32).fill(9) });
    const hex = Buffer.from(serializeTx(parts, true)).toString('hex');
    const { bytes, rebuilt, txid } = roundTrip(hex);
    expect(rebuilt.equals(bytes)).toBe(true);
    expect(txid).toBe(parseTransaction(bytes).txid);
  });

  it('with an output value changed has another txid (so the Merkle root check catches it)', () => {
    const tx = signed('segwit');
    const json = esploraTxJson(Buffer.from(tx.hex, 'hex'));
    json.vout[1]!.value += 1000;
    expect(parseTransaction(txBytesFromEsploraJson(json)).txid).not.toBe(tx.id);
  });

  it('makes a block that parses to the same transactions', () => {
    const txs = [GENESIS_COINBASE, signed('segwit').hex, signed('legacy').hex].map((h) => Buffer.from(h, 'hex'));
    const header = new Uint8Array(80).fill(1);
    const block = parseBlock(blockBytes(header, txs.map((t) => txBytesFromEsploraJson(esploraTxJson(t)))));
    expect(block.txs.map((t) => t.txid)).toEqual(txs.map((t) => parseTransaction(t).txid));
  });
});

describe('a malformed Esplora page', () => {
  const good = () => esploraTxJson(Buffer.from(signed('segwit').hex, 'hex')) as unknown as Record<string, unknown> & {
    vin: Record<string, unknown>[];
    vout: Record<string, unknown>[];
  };
  const cases: [string, (t: ReturnType<typeof good>) => unknown][] = [
    ['not an object', () => null],
    ['a value above 2^53', (t) => ((t.vout[0]!.value = 2 ** 53), t)],
    ['a fractional value', (t) => ((t.vout[0]!.value = 1.5), t)],
    ['a negative value', (t) => ((t.vout[0]!.value = -1), t)],
    ['a value as a string', (t) => ((t.vout[0]!.value = '1000'), t)],
    ['odd-length hex', (t) => ((t.vout[0]!.scriptpubkey = 'abc'), t)],
    ['a non-hex script', (t) => ((t.vin[0]!.scriptsig = 'zz'), t)],
    ['a short txid', (t) => ((t.vin[0]!.txid = 'aa'), t)],
    ['a vout above 32 bits', (t) => ((t.vin[0]!.vout = 2 ** 32), t)],
    ['no sequence', (t) => (delete t.vin[0]!.sequence, t)],
    ['a witness that is not a list', (t) => ((t.vin[0]!.witness = '00'), t)],
    ['no inputs', (t) => ((t.vin = []), t)],
    ['a version out of range', (t) => ((t.version = 2 ** 32), t)],
  ];
  it.each(cases)('is refused as the server’s error: %s', (_name, change) => {
    expect(() => txBytesFromEsploraJson(change(good()))).toThrow(BackendUnavailableError);
  });

  it('is refused when a page is short, long or not a list, or the count is absurd', () => {
    expect(() => pageTransactions(new Array(24).fill({}), 0, 60)).toThrow(BackendUnavailableError);
    expect(() => pageTransactions(new Array(11).fill({}), 50, 60)).toThrow(BackendUnavailableError);
    expect(() => pageTransactions({}, 0, 60)).toThrow(BackendUnavailableError);
    expect(pageTransactions(new Array(10).fill({}), 50, 60)).toHaveLength(10);
    for (const n of [0, -1, 1.5, '3', 1e9]) expect(() => blockTxCount({ tx_count: n })).toThrow(BackendUnavailableError);
    expect(blockTxCount({ tx_count: 26 })).toBe(26);
  });
});
