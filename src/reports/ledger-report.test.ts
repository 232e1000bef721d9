// The ledger on a bcoin regtest chain: a workload of orders paid exactly, under, over and late, a double spend, a
// reorg, a refund and a rate change, exported through the CLI and read back by Python's csv module.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { pythonCsvFile, skipWithoutPython } from '../../test/support/python-csv.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { inMempool, sessionOwning } from '../../test/support/refund-fixtures.ts';
import { runCli } from '../../test/support/server-process.ts';
import { addressForPublicKey, decodeAddress } from '../bitcoin/address.ts';
import { sql } from 'kysely';
import { syncLedger } from './ledger-sync.ts';
import { LEDGER_COLUMNS } from './ledger.ts';



const payee = () => addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');

/** Satoshis as BTC with 8 decimals, in integers. */
const btc8 = (sats: bigint) => `${sats / 100_000_000n}.${(sats % 100_000_000n).toString().padStart(8, '0')}`;
/** A fiat amount from satoshis × rate × 100, rounded half up to cents, in integers. */
const cents = (scaled: bigint) => {
  const c = (scaled + 50_000_000n) / 100_000_000n;
  return `${c / 100n}.${(c % 100n).toString().padStart(2, '0')}`;
};

describe.skipIf(skipWithoutPython('the regtest ledger test')).each(testEngines())('the merchant ledger on a regtest chain on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;
  let apiId: string;
  let walletId: bigint;
  let token: string;
  let env: Record<string, string>;
  let offset = 0;
  const dir = mkdtempSync(join(tmpdir(), 'satgate-report-'));
  const from = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const to = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '46000.50' }), SATGATE_POLL_MS: '600000', SATGATE_FALLBACK_FEE_RATE: '3' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      clock: () => Date.now() + offset,
      start: true,
    });
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'usd', notification_email: 'shop@example.test' } });
    apiId = added.json().api_id;
    walletId = (await t.ctx.wallets.repo.findByApiId(apiId))!.id;
    token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    env = { ...t.testDb.env, SATGATE_TEST_RPC_URL: node.rpcUrl, SATGATE_TEST_NETWORK: 'regtest' };
    await t.ctx.chains.pollNow();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  async function request() {
    const res = await postPayment(t.app, token, customRequest(apiId));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { payment_reference: string; crypto_address: string };
    const row = await t.ctx.db.kysely.selectFrom('payments').select('crypto_sats').where('reference', '=', body.payment_reference).executeTakeFirstOrThrow();
    return { reference: body.payment_reference, script: decodeAddress(body.crypto_address).script, sats: row.crypto_sats };
  }
  /** A new refresh record, as the rate refresher stores one: the rate of the moment from now on. */
  async function rateNow(usd: string) {
    const now = BigInt(Date.now() + offset);
    await t.ctx.db.kysely.insertInto('rate_records').values({ rate_at: now, fetched_at: now, origin: 'refresh', rates_json: JSON.stringify({ USD: usd }), sources_json: JSON.stringify({ answered: ['test'], failed: [], derived: [] }) }).execute();
  }
  async function exportCsv(name: string) {
    const file = join(dir, `${name}-${engine}.csv`);
    const res = await runCli(['report', 'ledger', '--wallet', apiId, '--from', from, '--to', to, '--format', 'csv', '--out', file], env);
    expect(res.code, res.stderr).toBe(0);
    return { rows: pythonCsvFile(file), text: readFileSync(file, 'utf8') };
  }

  it('has one row per fact with exact amounts, the rate of the moment, reversing rows, and agrees with the chain', async () => {
    await rateNow('50000');
    const exact = await request();
    await node.pay(exact.script, exact.sats);
    await node.mine(1);
    await t.ctx.chains.pollNow();

    await rateNow('60000.5');
    const under = await request();
    await node.pay(under.script, under.sats - 1000n);
    const over = await request();
    await node.pay(over.script, over.sats + 1000n);
    await node.mine(1);
    await t.ctx.chains.pollNow();

    const late = await request();
    offset = 16 * 60_000;
    await node.pay(late.script, late.sats);
    await t.ctx.chains.pollNow();
    offset = 0;
    await node.mine(1);
    await t.ctx.chains.pollNow();

    // Reorg: mined and exported, then its block leaves the best chain (the transaction returns to the mempool).
    const reorged = await request();
    const roTx = await node.pay(reorged.script, reorged.sats);
    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    // Double spend: seen in the mempool and exported, then a conflicting transaction is mined instead.
    const doubled = await request();
    const dsTx = await node.pay(doubled.script, doubled.sats);
    await t.ctx.chains.pollNow();
    const yesterday = await exportCsv('yesterday');

    await node.replaceWithConflict(dsTx.txid);
    await t.ctx.chains.pollNow();
    await syncLedger(t.ctx.db, walletId, Date.now());
    // Both blocks (the reorged payment's and the conflict's) leave the best chain; their transactions return to the mempool.
    await node.reorg(2, 3);
    await t.ctx.chains.pollNow();
    await syncLedger(t.ctx.db, walletId, Date.now());
    await node.mine(1);
    await t.ctx.chains.pollNow();

    // A refund of part of the exact payment, sent from the service-held wallet and mined.
    const session = await sessionOwning(t.ctx, 'shop@example.test', [walletId]);
    const exactTxid = (await t.ctx.db.kysely.selectFrom('chain_txs as x').innerJoin('chain_outputs as o', 'o.tx_id', 'x.id').innerJoin('payments as p', 'p.address_id', 'o.address_id').select('x.txid').where('p.reference', '=', exact.reference).executeTakeFirstOrThrow()).txid;
    const asked = await t.app.inject({ method: 'POST', url: '/refund_request', payload: { auth_token: session, tx_id: exactTxid, refund_amount: '0.0001' } });
    const formToken = asked.json().refund.refund_form_token as string;
    const to1 = payee();
    const set = await t.app.inject({ method: 'POST', url: '/set_refund_addr', payload: { refund_form_token: formToken, refund_addr: to1 } });
    const refundTxid = set.json().refund.tx_id as string;
    expect(await inMempool(node, refundTxid)).toBe(true);
    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();

    const today = await exportCsv('today');
    const header = today.text.split('\r\n')[0]!;
    expect(header).toBe(LEDGER_COLUMNS.join(','));
    const rows = today.rows;
    const receiptOf = (reference: string) => rows.filter((r) => r.reference === reference && r.kind === 'receipt');

    // One row per fact, amounts exact, fiat at the rate of the moment with the locked rate beside it.
    const [e] = receiptOf(exact.reference);
    expect(e).toMatchObject({ amount_btc: btc8(exact.sats), paid: 'exact', late: 'false', rate: '50000', rate_estimated: 'false', currency: 'USD', invoiced_amount: '25.00', status: 'confirmed' });
    expect(e!.locked_rate).not.toBe('');
    const [u] = receiptOf(under.reference);
    expect(u).toMatchObject({ paid: 'under', rate: '60000.5', amount_btc: `0.${String(under.sats - 1000n).padStart(8, '0')}` });
    expect(u!.fiat_value).toBe(cents((under.sats - 1000n) * 6_000_050n)); // sats × 60000.5 × 100 / 1e8
    expect(receiptOf(over.reference)[0]).toMatchObject({ paid: 'over', rate: '60000.5' });
    const [l] = receiptOf(late.reference);
    expect(l).toMatchObject({ late: 'true', paid: 'exact', rate_source: 'spot-at-first-sight' });

    // The double spend: its row and a reversing row taking it back.
    const ds = receiptOf(doubled.reference);
    expect(ds.map((r) => [r.status, r.reversal_reason, r.amount_btc!.startsWith('-')])).toEqual([['reversed', '', false], ['reversal', 'withdrawn', true]]);
    expect(ds[1]!.reverses_entry_id).toBe(ds[0]!.entry_id);
    // The reorg: the first confirmation taken back, the fact entered again and confirmed in the new branch.
    const ro = receiptOf(reorged.reference);
    expect(ro.map((r) => [r.status, r.reversal_reason])).toEqual([['reversed', ''], ['reversal', 'reorg'], ['confirmed', '']]);
    expect(ro[0]!.txid).toBe(roTx.txid);

    // The refund: its amount and fee apart, paid to the payer's address.
    const spend = await t.ctx.db.kysely.selectFrom('spends').select(['fee_sats']).where('txid', '=', refundTxid).executeTakeFirstOrThrow();
    expect(rows.filter((r) => r.kind === 'refund')).toEqual([expect.objectContaining({ txid: refundTxid, amount_btc: '-0.00010000', fee_btc: `-0.${String(spend.fee_sats).padStart(8, '0')}`, address: to1, status: 'confirmed' })]);

    // Yesterday's export is still true: every row it had is in today's with the same facts.
    const facts = ['entry_id', 'kind', 'txid', 'vout', 'amount_btc', 'fee_btc', 'first_seen_at', 'rate', 'rate_at', 'fiat_value', 'reference'];
    const pick = (r: Record<string, string>) => Object.fromEntries(facts.map((f) => [f, r[f]]));
    for (const old of yesterday.rows) expect(rows.map(pick)).toContainEqual(pick(old));

    // The reconciliation agrees with the chain, and says so with exit code 0.
    const check = await runCli(['report', 'check', '--wallet', apiId, '--from', from, '--to', to], env);
    expect(check.stdout).toContain('the ledger agrees with the chain');
    expect(check.code, check.stdout + check.stderr).toBe(0);

    // A row tampered with is a difference: exit 1, the transaction named.
    await t.ctx.db.kysely.updateTable('ledger_entries').set({ amount_sats: 1n }).where('txid', '=', exactTxid).where('kind', '=', 'receipt').execute();
    const bad = await runCli(['report', 'check', '--wallet', apiId, '--from', from, '--to', to], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(exactTxid);

    // The summary: one day, BTC in is the sum of the receipts standing.
    const sum = await runCli(['report', 'summary', '--wallet', apiId, '--from', from, '--to', to, '--format', 'jsonl', '--period', 'year'], env);
    expect(sum.code, sum.stderr).toBe(0);
    const years = sum.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, string>);
    expect(years).toHaveLength(1);
    expect(years[0]).toMatchObject({ period: String(new Date().getUTCFullYear()), currency: 'USD', btc_out: '0.00010000' });
  }, 240_000);

  it('a fault in the ledger never stops payment detection: the payment is seen, and the ledger catches up at the next sync', async () => {
    // The ledger table out of reach makes every ledger write fail inside the chain change's transaction.
    await sql`alter table ledger_entries rename to ledger_entries_away`.execute(t.ctx.db.kysely);
    const paid = await request();
    const { txid } = await node.pay(paid.script, paid.sats);
    try {
      await t.ctx.chains.pollNow();
      const status = await t.ctx.db.kysely.selectFrom('payments').select('status').where('reference', '=', paid.reference).executeTakeFirstOrThrow();
      expect(status.status).toBe('unconfirmed');
    } finally {
      await sql`alter table ledger_entries_away rename to ledger_entries`.execute(t.ctx.db.kysely);
    }
    expect(await t.ctx.db.kysely.selectFrom('ledger_entries').select('id').where('txid', '=', txid).execute()).toHaveLength(0);
    await syncLedger(t.ctx.db, walletId, Date.now());
    const rows = await t.ctx.db.kysely.selectFrom('ledger_entries').select(['kind', 'amount_sats']).where('txid', '=', txid).execute();
    expect(rows).toEqual([{ kind: 'receipt', amount_sats: paid.sats }]);
  }, 120_000);
});
