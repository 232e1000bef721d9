// BTCPay's reports API over the ledger, on a real bcoin regtest node and both engines: Greenfield invoices paid
// exactly, short and over, and a refund; the Payments and Sales views answer BTCPay's shape and their figures are
// the CSV export's, read back by an independent CSV reader (Python's csv module).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { pythonCsvText, skipWithoutPython } from '../../test/support/python-csv.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { inMempool, sessionOwning } from '../../test/support/refund-fixtures.ts';
import { addressForPublicKey, decodeAddress } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';
import { addDecimals, roundDecimal } from '../money/decimal.ts';
import { syncLedger } from '../reports/ledger-sync.ts';
import { ledgerRows, LEDGER_COLUMNS } from '../reports/ledger.ts';
import { ledgerLines, writeRows } from '../reports/exports.ts';
import { POLICIES, grants, isKnownPolicy } from './permissions.ts';
import { monthBefore, readReportRequest } from './reports.ts';



const payee = () => addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');

type Cell = string | number | boolean | null | { v: string; d: number };
interface Report {
  viewName: string;
  fields: { name: string; type: string }[];
  data: Cell[][];
  from: string;
  to: string;
  charts: { name: string; groups: string[]; totals: string[]; hasGrandTotal: boolean; aggregates: string[]; filters: string[] }[];
}
/** A report's rows as objects keyed by field name (as BTCPay's client reads them, by GetIndex). */
const named = (r: Report) => r.data.map((row) => Object.fromEntries(r.fields.map((f, i) => [f.name, row[i]])));
const v = (cell: unknown) => (cell as { v: string } | null)?.v ?? '';

describe('the reports permission', () => {
  it('is one `greenfield key create` knows, included by viewing and by modifying the store’s settings, as in BTCPay', () => {
    expect(isKnownPolicy('btcpay.store.canviewreports')).toBe(true);
    expect(grants(['btcpay.store.canviewstoresettings:s1'], POLICIES.viewReports, 's1')).toBe(true);
    expect(grants(['btcpay.store.canmodifystoresettings'], POLICIES.viewReports, 's1')).toBe(true);
    expect(grants(['btcpay.store.canviewinvoices:s1'], POLICIES.viewReports, 's1')).toBe(false);
  });
});

describe('the report request', () => {
  const now = Date.UTC(2026, 2, 31, 12, 0, 0);
  it('defaults to the month before now, as BTCPay does (the month’s last day when it is shorter)', () => {
    expect(readReportRequest({ viewName: 'Payments' } as never, now)).toEqual({ viewName: 'Payments', from: Date.UTC(2026, 1, 28, 12, 0, 0), to: now });
    expect(monthBefore(Date.UTC(2026, 0, 15))).toBe(Date.UTC(2025, 11, 15));
  });
});

describe.skipIf(skipWithoutPython('the regtest reports test')).each(testEngines())('BTCPay reports from the ledger on a regtest chain on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;
  let store: string;
  let walletId: bigint;
  let key: string;
  const paid: Record<string, { id: string; txid: string }> = {};
  let refundTxid = '';

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '46000.50' }), SATGATE_POLL_MS: '600000', SATGATE_FALLBACK_FEE_RATE: '3' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'usd', notification_email: 'shop@example.test' } });
    store = added.json().api_id;
    walletId = (await t.ctx.wallets.repo.findByApiId(store))!.id;
    key = await greenfieldKey(t.ctx, store, [POLICIES.viewReports, POLICIES.createInvoice, POLICIES.viewInvoices]);
    await t.ctx.chains.pollNow();

    // Three invoices of 25 USD (0.0005 BTC at 50000): paid exactly, short and over.
    for (const [name, btc] of [['exact', '0.0005'], ['under', '0.0004'], ['over', '0.0006']] as const) {
      const inv = (await gf(t.app, key, 'POST', `/api/v1/stores/${store}/invoices`, { amount: '25', currency: 'USD', metadata: { orderId: `order-${name}` } })).json();
      const [pm] = (await gf(t.app, key, 'GET', `/api/v1/stores/${store}/invoices/${inv.id}/payment-methods`)).json();
      const tx = await node.pay(decodeAddress(pm.destination).script, satsFromBtc(btc));
      paid[name] = { id: inv.id, txid: tx.txid };
    }
    await node.mine(1);
    await t.ctx.chains.pollNow();

    // A refund of part of the exact payment, sent and mined.
    const session = await sessionOwning(t.ctx, 'shop@example.test', [walletId]);
    const asked = await t.app.inject({ method: 'POST', url: '/refund_request', payload: { auth_token: session, tx_id: paid.exact!.txid, refund_amount: '0.0001' } });
    const set = await t.app.inject({ method: 'POST', url: '/set_refund_addr', payload: { refund_form_token: asked.json().refund.refund_form_token, refund_addr: payee() } });
    refundTxid = set.json().refund.tx_id;
    expect(await inMempool(node, refundTxid)).toBe(true);
    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  const period = () => ({ from: Math.floor(Date.now() / 1000) - 86_400, to: Math.floor(Date.now() / 1000) + 60 });

  async function report(viewName: string, withKey = key) {
    return gf(t.app, withKey, 'POST', `/api/v1/stores/${store}/reports`, { viewName, timePeriod: period() });
  }
  /** The CSV export of the same period, written by exports.ts as `satgate report ledger` writes it. */
  async function csvRows() {
    const { from, to } = period();
    await syncLedger(t.ctx.db, walletId, Date.now());
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    await writeRows(ledgerLines(ledgerRows(t.ctx.db, { walletId, apiId: store, from: from * 1000, to: (to + 1) * 1000 })), LEDGER_COLUMNS, 'csv', out);
    out.end();
    return pythonCsvText(text);
  }

  it('Payments answers BTCPay’s shape, one row per received output, with the CSV’s amounts, rates and fiat values', async () => {
    const res = await report('Payments');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Report;
    expect(body.viewName).toBe('Payments');
    expect(body.fields.slice(0, 14).map((f) => `${f.name}:${f.type}`)).toEqual([
      'Date:datetime', 'InvoiceId:invoice_id', 'OrderId:string', 'Category:string', 'PaymentMethodId:string', 'Confirmed:boolean', 'Address:string',
      'PaymentCurrency:string', 'PaymentAmount:amount', 'PaymentMethodFee:decimal', 'LightningAddress:string', 'InvoiceCurrency:string', 'InvoiceCurrencyAmount:amount', 'Rate:amount',
    ]);
    expect(body.data.every((row) => row.length === body.fields.length)).toBe(true);
    expect(body.charts[0]).toEqual({ name: "Aggregated by payment's currency", groups: ['PaymentCurrency', 'PaymentMethodId'], totals: ['PaymentCurrency'], hasGrandTotal: false, aggregates: ['PaymentAmount'], filters: [] });
    expect(new Date(body.from).getTime()).toBe(period().from * 1000);

    const rows = named(body);
    const csv = (await csvRows()).filter((r) => r.kind === 'receipt');
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.EntryId)).toEqual(csv.map((r) => r.entry_id));
    for (const [i, r] of rows.entries()) {
      const c = csv[i]!;
      expect(r).toMatchObject({ Date: c.at, Category: 'On-Chain', PaymentMethodId: 'BTC-CHAIN', Confirmed: true, Address: c.address, PaymentCurrency: 'BTC', PaymentMethodFee: 0, InvoiceCurrency: 'USD', TransactionId: c.txid, Paid: c.paid });
      expect(r.PaymentAmount).toEqual({ v: c.amount_btc, d: 8 });
      expect(r.InvoiceCurrencyAmount).toEqual({ v: c.fiat_value, d: 2 });
      expect(r.Rate).toEqual({ v: c.rate, d: 2 });
    }
    const byOrder = Object.fromEntries(rows.map((r) => [String(r.OrderId), r]));
    expect(byOrder['order-exact']).toMatchObject({ InvoiceId: paid.exact!.id, Paid: 'exact', PaymentAmount: { v: '0.00050000', d: 8 }, InvoiceCurrencyAmount: { v: '25.00', d: 2 } });
    expect(byOrder['order-under']).toMatchObject({ InvoiceId: paid.under!.id, Paid: 'under', PaymentAmount: { v: '0.00040000', d: 8 } });
    expect(byOrder['order-over']).toMatchObject({ InvoiceId: paid.over!.id, Paid: 'over', PaymentAmount: { v: '0.00060000', d: 8 } });
    // The refund is money out, not a payment received.
    expect(rows.some((r) => r.TransactionId === refundTxid)).toBe(false);
    expect((await csvRows()).filter((r) => r.kind === 'refund')).toHaveLength(1);
  });

  it('Sales answers one row per invoice with its invoiced amount, state and what it received, summed from the CSV', async () => {
    const res = await report('Sales');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as Report;
    expect(body.fields.slice(0, 8).map((f) => `${f.name}:${f.type}`)).toEqual([
      'Date:datetime', 'InvoiceId:invoice_id', 'State:string', 'AppId:string', 'Product:string', 'Quantity:integer', 'CurrencyAmount:amount', 'Currency:string',
    ]);
    expect(body.charts).toEqual([{ name: 'Summary', groups: ['AppId', 'Currency', 'State', 'Product'], totals: ['State'], hasGrandTotal: false, aggregates: ['Quantity', 'CurrencyAmount'], filters: [] }]);
    const rows = named(body);
    const csv = (await csvRows()).filter((r) => r.kind === 'receipt');
    expect(rows).toHaveLength(3);
    const byInvoice = Object.fromEntries(rows.map((r) => [String(r.InvoiceId), r]));
    expect(byInvoice[paid.exact!.id]).toMatchObject({ State: 'Settled', Product: 'order-exact', AppId: 'payment', Quantity: 1, CurrencyAmount: { v: '25.00', d: 2 }, Currency: 'USD', Paid: 'exact' });
    expect(byInvoice[paid.under!.id]).toMatchObject({ State: 'New', Paid: 'under' });
    expect(byInvoice[paid.over!.id]).toMatchObject({ State: 'Settled', Paid: 'over' });
    for (const r of rows) {
      const of = csv.filter((c) => c.reference === r.Reference);
      expect(of.length).toBeGreaterThan(0);
      expect(v(r.PaidAmount)).toBe(roundDecimal(of.map((c) => c.amount_btc!).reduce(addDecimals, '0'), 8));
      expect(r.CurrencyAmount).toEqual({ v: of[0]!.invoiced_amount, d: 2 });
      expect(v(r.PaidCurrencyAmount)).toBe(roundDecimal(of.map((c) => c.fiat_value!).reduce(addDecimals, '0'), 2));
    }
  });

  it('refuses a key without btcpay.store.canviewreports with 403, in Greenfield’s error shape', async () => {
    const without = await greenfieldKey(t.ctx, store, [POLICIES.viewInvoices, POLICIES.createInvoice]);
    const res = await report('Payments', without);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ code: 'missing-permission', message: expect.stringContaining('btcpay.store.canviewreports') });
    // Viewing the store's settings includes viewing its reports, as in BTCPay.
    const viewer = await greenfieldKey(t.ctx, store, [POLICIES.viewStoreSettings]);
    expect((await report('Sales', viewer)).statusCode).toBe(200);
  });

  it('answers a bad request with Greenfield’s errors and writes nothing', async () => {
    const count = async () => Number((await t.ctx.db.kysely.selectFrom('ledger_entries').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    await syncLedger(t.ctx.db, walletId, Date.now());
    const before = await count();
    const post = (body: unknown) => gf(t.app, key, 'POST', `/api/v1/stores/${store}/reports`, body);

    const unknown = await post({ viewName: 'Nope' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json()).toEqual([{ path: 'ViewName', message: "View doesn't exist" }]);
    // No view named: BTCPay's default (Invoices), which satgate does not have.
    expect((await post({})).json()).toEqual([{ path: 'ViewName', message: "View doesn't exist" }]);
    const typed = await post({ viewName: 7, timePeriod: { from: '1700000000', to: 1.5 } });
    expect(typed.statusCode).toBe(422);
    expect(typed.json().map((e: { path: string }) => e.path)).toEqual(['viewName', 'timePeriod.from', 'timePeriod.to']);
    expect((await post({ viewName: 'Payments', timePeriod: { from: 20, to: 10 } })).json()).toEqual([{ path: 'timePeriod.from', message: 'must not be after timePeriod.to' }]);
    expect((await post([])).statusCode).toBe(422);
    const malformed = await post('{"viewName":');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('malformed-body');
    expect(await count()).toBe(before);
  });
});
