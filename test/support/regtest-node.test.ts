import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { startRegtestNode, type RegtestNode } from './regtest-node.ts';
import { RpcError } from '../../src/chain/rpc-client.ts';
import { parseBlock } from '../../src/bitcoin/raw-block.ts';
import { parseTransaction } from '../../src/bitcoin/raw-tx.ts';
import { ScriptIndex } from '../../src/bitcoin/script-index.ts';

const merchant = {
  p2wpkh: hex.decode('0014' + '12'.repeat(20)),
  p2pkh: hex.decode('76a914' + '34'.repeat(20) + '88ac'),
  p2sh: hex.decode('a914' + '56'.repeat(20) + '87'),
  p2tr: hex.decode('5120' + '78'.repeat(32)),
};

let node: RegtestNode;

beforeAll(async () => {
  node = await startRegtestNode();
});

afterAll(async () => {
  await node?.stop();
});

async function mempool(): Promise<string[]> {
  return node.rpc.getRawMempool();
}

describe('regtest node harness', () => {
  it('starts a bcoin regtest chain past segwit activation that our RpcClient can read', async () => {
    const info = await node.rpc.call<{ chain: string; blocks: number; bip9_softforks: { segwit: { status: string } } }>('getblockchaininfo');
    expect(info.chain).toBe('regtest');
    expect(info.blocks).toBe(450);
    expect(info.bip9_softforks.segwit.status).toBe('active');
    const best = await node.rpc.getBestBlockHash();
    expect(await node.rpc.getBlockHash(450)).toBe(best);
    const header = await node.rpc.getBlockHeader(best);
    expect(header).toMatchObject({ hash: best, height: 450, confirmations: 1, bits: '207fffff' });
    expect(header.previousblockhash).toBe(await node.rpc.getBlockHash(449));
    const block = parseBlock(await node.rpc.getRawBlock(best));
    expect(block.header.hash).toBe(best);
    expect(block.header.prevHash).toBe(header.previousblockhash);
    expect(block.txs[0]!.coinbase).toBe(true);
    expect(block.txs[0]!.outputs[0]!.script).toEqual(node.payerScript);
  });

  it('answers unknown transactions with null and unknown blocks with RpcError, as bcoin words them', async () => {
    expect(await node.rpc.getRawTransaction('ab'.repeat(32))).toBeNull();
    await expect(node.rpc.getRawBlock('ab'.repeat(32))).rejects.toBeInstanceOf(RpcError);
    await expect(node.rpc.getBlockHash(100_000)).rejects.toBeInstanceOf(RpcError);
    expect(await node.rpc.estimateSmartFee(2)).toBe(2n);
  });

  it('shows a payment in the mempool, then in a mined block with the right output', async () => {
    const pay = await node.pay(merchant.p2wpkh, 123_456n);
    expect(await mempool()).toContain(pay.txid);
    const fromMempool = parseTransaction((await node.rpc.getRawTransaction(pay.txid))!);
    expect(fromMempool.txid).toBe(pay.txid);
    expect(fromMempool.outputs[pay.vouts[0]!]).toEqual({ value: 123_456n, script: merchant.p2wpkh });

    const [hash] = await node.mine(1);
    expect(await mempool()).not.toContain(pay.txid);
    const block = parseBlock(await node.rpc.getRawBlock(hash!));
    const watched = new ScriptIndex<string>();
    watched.add(merchant.p2wpkh, 'order-1');
    const hits = block.txs.flatMap((tx) =>
      tx.outputs.flatMap((o, vout) => (watched.get(o.script) ? [{ txid: tx.txid, vout, value: o.value }] : [])),
    );
    expect(hits).toEqual([{ txid: pay.txid, vout: 0, value: 123_456n }]);
  });

  it('pays several scripts of every type in one transaction, and pays again before any confirmation', async () => {
    const many = await node.payMany([
      { script: merchant.p2pkh, amount: 1_000n },
      { script: merchant.p2sh, amount: 2_000n },
      { script: merchant.p2tr, amount: 3_000n },
    ]);
    const again = await Promise.all([node.pay(merchant.p2wpkh, 10_000n), node.pay(merchant.p2wpkh, 20_000n)]);
    const pool = await mempool();
    for (const p of [many, ...again]) expect(pool).toContain(p.txid);
    const tx = parseTransaction(hex.decode(many.hex));
    expect(many.vouts).toEqual([0, 1, 2]);
    expect(tx.outputs.slice(0, 3).map((o) => [o.value, hex.encode(o.script)])).toEqual([
      [1_000n, hex.encode(merchant.p2pkh)],
      [2_000n, hex.encode(merchant.p2sh)],
      [3_000n, hex.encode(merchant.p2tr)],
    ]);
    await node.mine(1);
    expect(await mempool()).toEqual([]);
  });

  it('mines a block of chosen transactions only, with a witness commitment bcoin accepts', async () => {
    const chosen = await node.pay(merchant.p2wpkh, 5_000n);
    const left = await node.pay(merchant.p2wpkh, 6_000n);
    const tipBefore = await node.rpc.getBestBlockHash();
    const hash = await node.mineBlockWith([chosen.hex]);
    expect(await node.rpc.getBestBlockHash()).toBe(hash);
    const block = parseBlock(await node.rpc.getRawBlock(hash));
    expect(block.header.prevHash).toBe(tipBefore);
    expect(block.txs.map((t) => t.txid)).toEqual([block.txs[0]!.txid, chosen.txid]);
    expect(block.txs[0]!.hasWitness).toBe(true);
    expect(await mempool()).toEqual([left.txid]);
    const empty = parseBlock(await node.rpc.getRawBlock(await node.mineBlockWith([])));
    expect(empty.txs).toHaveLength(1);
    expect(empty.txs[0]!.hasWitness).toBe(false);
    await node.mine(1);
  });

  it('replaces a mempool payment the way a miner does: a block with a conflicting transaction', async () => {
    const original = await node.pay(merchant.p2wpkh, 77_000n);
    expect(await mempool()).toContain(original.txid);
    const conflict = await node.replaceWithConflict(original.txid);
    expect(await mempool()).not.toContain(original.txid);
    expect(await node.rpc.getRawTransaction(original.txid)).toBeNull();
    expect(await node.rpc.getBestBlockHash()).toBe(conflict.blockHash);
    const block = parseBlock(await node.rpc.getRawBlock(conflict.blockHash));
    const mined = block.txs.find((t) => t.txid === conflict.txid)!;
    expect(mined.inputs).toEqual(parseTransaction(hex.decode(original.hex)).inputs);
    expect(mined.outputs.map((o) => o.script)).toEqual([node.payerScript]);
  });

  it('conflicts a payment that spends unconfirmed change, mining its parent alongside', async () => {
    const parent = await node.pay(merchant.p2pkh, 4_000n);
    const parentTx = parseTransaction(hex.decode(parent.hex));
    const changeVout = parentTx.outputs.length - 1;
    // A child spending the parent's change, built by hand to force the unconfirmed spend.
    const child = new Transaction();
    child.addInput({ txid: parent.txid, index: changeVout, witnessUtxo: { script: node.payerScript, amount: parentTx.outputs[changeVout]!.value } });
    child.addOutput({ script: merchant.p2wpkh, amount: 9_000n });
    child.addOutput({ script: node.payerScript, amount: parentTx.outputs[changeVout]!.value - 9_000n - 500n });
    node.signAsPayer(child);
    await node.sendAndWait(child.hex);
    const conflict = await node.replaceWithConflict(child.id);
    const block = parseBlock(await node.rpc.getRawBlock(conflict.blockHash));
    expect(block.txs.map((t) => t.txid).slice(1)).toEqual([parent.txid, conflict.txid]);
    expect(await mempool()).not.toContain(child.id);
  });

  it('reorganises onto a longer competing branch, returning the orphaned payment to the mempool', async () => {
    const pay = await node.pay(merchant.p2wpkh, 88_000n);
    const [orphan] = await node.mine(1);
    expect(await mempool()).not.toContain(pay.txid);
    const branch = await node.reorg(1, 2);
    expect(branch).toHaveLength(2);
    expect(await node.rpc.getBestBlockHash()).toBe(branch[1]);
    expect((await node.rpc.getBlockHeader(branch[0]!)).previousblockhash).toBe((await node.rpc.getBlockHeader(orphan!)).previousblockhash);
    expect(await mempool()).toContain(pay.txid);
    // A second reorg can carry the payment into the new branch instead.
    const again = await node.reorg(2, 3, { include: [pay.hex] });
    const first = parseBlock(await node.rpc.getRawBlock(again[0]!));
    expect(first.txs.map((t) => t.txid)).toContain(pay.txid);
    expect(await mempool()).not.toContain(pay.txid);
  });

  it('reorganises through invalidateblock, after which the orphaned payment vanishes', async () => {
    const pay = await node.pay(merchant.p2wpkh, 99_000n);
    const [orphan] = await node.mine(1);
    const heightBefore = await node.height();
    const branch = await node.reorg(1, 2, { method: 'invalidate' });
    expect(await node.height()).toBe(heightBefore + 1);
    expect(await node.rpc.getBestBlockHash()).toBe(branch[1]);
    expect(await node.rpc.getBlockHash(heightBefore)).not.toBe(orphan);
    expect(await mempool()).not.toContain(pay.txid);
  });
});
