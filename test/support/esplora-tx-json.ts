// A transaction's bytes as Esplora's JSON shows them (Blockstream/esplora API.md, "Transaction format"): the
// fields that carry its serialization (version, locktime, every input's outpoint, scriptsig, sequence and
// witness, every output's scriptpubkey and value). Decoded here independently of the light client's rebuild
// (src/chain/light/esplora-block-pages.ts), so a test round-trips through two separate walkers.
import { ByteReader, parseTransaction, reversedHex } from '../../src/bitcoin/raw-tx.ts';

export interface EsploraTxInputJson {
  txid: string;
  vout: number;
  scriptsig: string;
  /** Left out when the input has no witness, as Esplora does. */
  witness?: string[];
  is_coinbase: boolean;
  sequence: number;
}

export interface EsploraTxJson {
  txid: string;
  version: number;
  locktime: number;
  vin: EsploraTxInputJson[];
  vout: { scriptpubkey: string; value: number }[];
  size: number;
  weight: number;
}

export function esploraTxJson(bytes: Uint8Array): EsploraTxJson {
  const parsed = parseTransaction(bytes);
  const r = new ByteReader(bytes);
  const hex = (n: number) => Buffer.from(bytes.subarray(r.skip(n), r.pos)).toString('hex');
  const version = r.u32();
  if (parsed.hasWitness) r.skip(2);
  const vin: EsploraTxInputJson[] = [];
  for (let i = r.varint(); i > 0; i--) {
    const p = r.skip(32);
    const vout = r.u32();
    const scriptsig = hex(r.varint());
    const sequence = r.u32();
    vin.push({ txid: reversedHex(bytes, p, p + 32), vout, scriptsig, is_coinbase: parsed.coinbase, sequence });
  }
  const vout: { scriptpubkey: string; value: number }[] = [];
  for (let i = r.varint(); i > 0; i--) {
    const value = Number(r.u64());
    vout.push({ value, scriptpubkey: hex(r.varint()) });
  }
  if (parsed.hasWitness) {
    for (const input of vin) {
      const items: string[] = [];
      for (let j = r.varint(); j > 0; j--) items.push(hex(r.varint()));
      if (items.length > 0) input.witness = items;
    }
  }
  const locktime = r.u32();
  return { txid: parsed.txid, version, locktime, vin, vout, size: bytes.length, weight: parsed.vsize * 4 };
}
