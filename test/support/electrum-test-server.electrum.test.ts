// The Electrum test server proven faithful by Electrum itself: a watch-only Electrum regtest wallet,
// connected to our server only, shows the node's history with every transaction SPV-verified (its
// `confirmations`, which Electrum only gives a transaction whose Merkle proof it checked), and follows a reorg.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from './regtest-node.ts';
import { startElectrumTestServer, type ElectrumTestServer } from './electrum-test-server.ts';
import { ElectrumWallet, electrumUnavailable, type ElectrumTx } from './electrum-wallet.ts';
import { generateNewWallet } from '../../src/bitcoin/new-wallet.ts';
import { decodeAddress } from '../../src/bitcoin/address.ts';

const why = electrumUnavailable();
if (why) console.warn(`skipping the Electrum client tests: ${why}`);

describe.skipIf(why !== null)('the Electrum test server, as Electrum 4 sees it', () => {
  let node: RegtestNode;
  let server: ElectrumTestServer;
  let wallet: ElectrumWallet;

  beforeAll(async () => {
    node = await startRegtestNode();
    server = await startElectrumTestServer(node);
    wallet = await ElectrumWallet.start(generateNewWallet(true).accountKey, server);
  }, 120_000);

  afterAll(async () => {
    await wallet?.stop();
    await server?.close();
    await node?.stop();
  });

  const byTxid = (txs: ElectrumTx[], txid: string) => txs.find((t) => t.txid === txid);

  it('connects to our server only, negotiates, and follows its headers to the node’s tip', async () => {
    const height = await node.height();
    const info = await wallet.until(() => wallet.info(), (i) => i.connected && i.blockchain_height === height);
    expect(info.server_height).toBe(height);
    expect(server.calls).toContain('server.version');
    expect(server.calls).toContain('blockchain.block.headers');
  }, 90_000);

  it('shows payments with the node’s history, each SPV-verified, and a waiting one as unconfirmed', async () => {
    const [first, second] = await wallet.addresses();
    const paid1 = await node.pay(decodeAddress(first!).script, 120_000n);
    await node.mine(2);
    const paid2 = await node.pay(decodeAddress(second!).script, 30_000n);
    const txs = await wallet.until(
      () => wallet.history(),
      (h) => byTxid(h, paid1.txid)?.confirmations === 2 && byTxid(h, paid2.txid) !== undefined,
    );
    const mined = await node.rpc.getRawTransaction(paid1.txid);
    expect(mined).not.toBeNull();
    expect(byTxid(txs, paid1.txid)).toMatchObject({ confirmations: 2, height: (await node.height()) - 1 });
    expect(byTxid(txs, paid2.txid)).toMatchObject({ confirmations: 0 });
    expect(server.calls).toContain('blockchain.transaction.get_merkle');
    expect(server.calls).toContain('blockchain.scripthash.subscribe');

    await node.mine(1);
    const after = await wallet.until(() => wallet.history(), (h) => byTxid(h, paid2.txid)?.confirmations === 1);
    expect(byTxid(after, paid1.txid)?.confirmations).toBe(3);
  }, 90_000);

  it('follows a reorg: a payment whose block is replaced returns to unconfirmed, then confirms in the new branch', async () => {
    const [, , third] = await wallet.addresses();
    const paid = await node.pay(decodeAddress(third!).script, 55_000n);
    await node.mine(1);
    await wallet.until(() => wallet.history(), (h) => byTxid(h, paid.txid)?.confirmations === 1);

    await node.reorg(1, 2);
    const height = await node.height();
    await wallet.until(() => wallet.info(), (i) => i.blockchain_height === height);
    await wallet.until(() => wallet.history(), (h) => byTxid(h, paid.txid)?.confirmations === 0);

    await node.mine(1);
    const txs = await wallet.until(() => wallet.history(), (h) => byTxid(h, paid.txid)?.confirmations === 1);
    expect(byTxid(txs, paid.txid)?.height).toBe(height + 1);
  }, 120_000);

  it('drops our server when it lies with a Merkle proof for another transaction, and never counts the payment as confirmed', async () => {
    const [, , , fourth] = await wallet.addresses();
    server.lies.proofForAnotherTx = true;
    try {
      const paid = await node.pay(decodeAddress(fourth!).script, 66_000n);
      await node.mine(1);
      await wallet.until(() => wallet.logs(), (log) => /merkle verification failed/i.test(log) && log.includes(paid.txid), 60_000);
      expect(byTxid(await wallet.history(), paid.txid)?.confirmations ?? 0).toBe(0);
    } finally {
      delete server.lies.proofForAnotherTx;
    }
  }, 90_000);
});
