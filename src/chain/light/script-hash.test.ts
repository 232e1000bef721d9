import { describe, expect, it } from 'vitest';
import { electrumScriptHash, electrumStatus, esploraScriptHash, orderMempoolEntries } from './script-hash.ts';

// Vectors from spesmilo/electrum-protocol docs/protocol-basics.rst ("Script Hashes" and "Status").
describe('script hashes and the Electrum status', () => {
  it('hashes the P2PKH script of 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa as the protocol document shows', () => {
    const script = Buffer.from('76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac', 'hex');
    expect(electrumScriptHash(script)).toBe('8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161');
  });

  it('hashes the genesis P2PK script reversed for Electrum and not reversed for Esplora', () => {
    const script = Buffer.from(
      '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac',
      'hex',
    );
    expect(esploraScriptHash(script)).toBe('3318537dfb3135df9f3d950dbdf8a7ae68dd7c7dfef61ed17963ff80f3850474');
    expect(electrumScriptHash(script)).toBe('740485f380ff6379d11ef6fe7d7cdd68aea7f8bd0d953d9fdf3531fb7d531833');
  });

  it('computes the status of the documented regtest history, mempool ordered by (-height, txid)', () => {
    const mempool = orderMempoolEntries([
      { txid: 'bb4c8ab438c13b89ca80d1d5bee25b0b6b7f55673f4d801998ba97db161d9e85', height: -1 },
      { txid: 'e02a1dadfa83b996b24175df807b271ea5d02937ef5b35c195fac1e1bdc3198f', height: 0 },
      { txid: '80b19848aed792565ab7c5a79b7c2a00fbf985741579396ebe0ab6098e607311', height: 0 },
    ]);
    const history = [
      { txid: 'a6c9c361bd0bc536d6a22648efbf8f9b200e425ef6c3a7a9669dc444c532a347', height: 2472 },
      { txid: '9c42f84b2fcdaff676ba25d9d4941741cc0d1a01cce0c23fdc4c0b2afa38431c', height: 2473 },
      { txid: '770f2d4371b3fabb902dd9a103e2dd005fcd3971181078fca4a2a1d6ff127b30', height: 2473 },
      ...mempool,
    ];
    expect(mempool.map((m) => m.txid.slice(0, 2))).toEqual(['80', 'e0', 'bb']);
    expect(electrumStatus(history)).toBe('78e96c6562cafa71c115503b9411fdfdc595a45031e2ab76ff75162fe1b0590d');
  });

  it('has no status for an empty history', () => {
    expect(electrumStatus([])).toBeNull();
  });
});
