// `satgate report check` against a light chain source: the wallet follows the Electrum test server in front of a
// bcoin regtest node, and the check reads the chain from that server (each script's history, the headers of the
// blocks) instead of a node's blocks. The ledger agrees with it, and a tampered row is a difference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { startSource, type RunningSource } from '../../test/support/chain-sources.ts';
import { decodeAddressFor } from '../bitcoin/address.ts';
import { LightChainSource } from '../chain/chain-source.ts';
import { syncLedger } from './ledger-sync.ts';
import { blockReaderOf, reconcile } from './reconcile.ts';

describe.each(testEngines())('the reconciliation on an Electrum source on %s', (engine) => {
  let node: RegtestNode;
  let source: RunningSource;
  let t: TestApp;

  beforeAll(async () => {
    node = await startRegtestNode();
    source = await startSource('Electrum', node);
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_POLL_MS: '600000' },
      chains: { test: { ...source.endpoint, network: 'regtest' } },
      start: true,
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await source?.stop();
    await node?.stop();
  });

  it('reads what the wallet received from the light server and agrees with the ledger; a changed row is a difference', async () => {
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'usd' } });
    const apiId = String(added.json().api_id);
    const walletId = (await t.ctx.wallets.repo.findByApiId(apiId))!.id;
    const paid = [150_000n, 275_000n];
    const txids: string[] = [];
    for (const sats of paid) {
      const addr = await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: apiId } });
      expect(addr.json().return, addr.body).toBe('0');
      txids.push((await node.pay(decodeAddressFor(String(addr.json().addr), 'regtest').script, sats)).txid);
    }
    await node.mine(1);
    for (let i = 0; i < 100; i++) {
      await t.ctx.chains.pollNow();
      const confirmed = await t.ctx.db.kysely.selectFrom('ledger_entries').select('id').where('wallet_id', '=', walletId).where('confirmed_height', 'is not', null).execute();
      if (confirmed.length === paid.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }

    const chainSource = t.ctx.chains.forMode('test').source;
    expect(chainSource).toBeInstanceOf(LightChainSource);
    const reader = blockReaderOf(chainSource)!;
    const from = Date.now() - 86_400_000;
    const to = Date.now() + 86_400_000;
    await syncLedger(t.ctx.db, walletId, Date.now());
    const agreed = await reconcile(t.ctx.db, reader, walletId, from, to);
    expect(agreed.differences).toEqual([]);
    expect(agreed.chain.receivedSats).toBe(paid[0]! + paid[1]!);
    expect(agreed.ledger.receivedSats).toBe(paid[0]! + paid[1]!);

    await t.ctx.db.kysely.updateTable('ledger_entries').set({ amount_sats: 1n }).where('txid', '=', txids[1]!).execute();
    const differs = await reconcile(t.ctx.db, reader, walletId, from, to);
    expect(differs.differences.some((d) => d.startsWith(txids[1]!))).toBe(true);
  }, 240_000);
});
