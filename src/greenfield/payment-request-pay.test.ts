// BTCPay's POST …/payment-requests/{id}/pay on a real bcoin regtest node and both engines: the invoice of a part
// (InvoiceData), a pending one reused when asked, the request Completed once its invoices are paid, BTCPay's refusal
// codes; and the payer's mails in the wallet's default language (German here), not always English.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { ApiError, InvoiceData, schemaErrors, ValidationErrors } from '../../test/support/greenfield-openapi.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';
import { openSealedMail } from '../notify/sealed-mail.ts';
import { POLICIES } from './permissions.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('paying a payment request through Greenfield on %s', (engine) => {
  let t: TestApp;
  let store: string;
  let key: string;
  let viewKey: string;
  let invoiceKey: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile({ EUR: '40000' }) }, chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } }, start: true });
    await t.ctx.chains.pollNow();
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'eur' } });
    store = (res.json() as { api_id: string }).api_id;
    await t.ctx.db.kysely.updateTable('wallets').set({ default_language: 'de' }).where('api_id', '=', store).execute();
    key = await greenfieldKey(t.ctx, store, [POLICIES.modifyPaymentRequests]);
    viewKey = await greenfieldKey(t.ctx, store, [POLICIES.viewPaymentRequests]);
    invoiceKey = await greenfieldKey(t.ctx, store, [POLICIES.viewInvoices]);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const base = () => `/api/v1/stores/${store}/payment-requests`;
  const mailsTo = async (to: string) =>
    (await t.ctx.db.kysely.selectFrom('outbox').selectAll().where('target', '=', to).where('kind', '=', 'email').orderBy('id').execute()).map(
      (m) => openSealedMail(t.ctx.masterKey, JSON.parse(m.payload_json) as Record<string, unknown>)!,
    );
  const payInvoice = async (invoiceId: string) => {
    const [pm] = (await gf(t.app, invoiceKey, 'GET', `/api/v1/stores/${store}/invoices/${invoiceId}/payment-methods`)).json() as { destination: string; amount: string }[];
    await node.pay(decodeAddress(pm!.destination).script, satsFromBtc(pm!.amount));
  };

  it('a part’s invoice is InvoiceData, a pending one is reused when asked, and the German payer is mailed in German', async () => {
    const created = await gf(t.app, key, 'POST', base(), { amount: '100', currency: 'EUR', title: 'Webseite, März', allowCustomPaymentAmounts: true, email: 'kunde@example.com' });
    expect(created.statusCode, created.body).toBe(200);
    const pr = created.json() as { id: string };
    const [createdMail] = await mailsTo('kunde@example.com');
    expect(createdMail!.subject).toBe('Zahlungsanforderung: Webseite, März');
    expect(createdMail!.text).toContain('Sie haben eine Zahlungsanforderung erhalten: Webseite, März');

    const first = await gf(t.app, viewKey, 'POST', `${base()}/${pr.id}/pay`, { amount: '40' });
    expect(first.statusCode, first.body).toBe(200);
    const invoice = first.json() as Record<string, any>;
    expect(schemaErrors(InvoiceData, invoice)).toEqual([]);
    expect(invoice).toMatchObject({ storeId: store, amount: '40', currency: 'EUR', status: 'New', metadata: { paymentRequestId: pr.id, orderId: `PAY_REQUEST_${pr.id}`, buyerEmail: 'kunde@example.com' } });
    const reused = await gf(t.app, viewKey, 'POST', `${base()}/${pr.id}/pay`, { amount: '40', allowPendingInvoiceReuse: true });
    expect((reused.json() as { id: string }).id).toBe(invoice.id);
    const fresh = await gf(t.app, viewKey, 'POST', `${base()}/${pr.id}/pay`, { amount: '60', allowPendingInvoiceReuse: true });
    expect(fresh.json()).toMatchObject({ amount: '60' });
    expect((fresh.json() as { id: string }).id).not.toBe(invoice.id);

    await payInvoice(invoice.id as string);
    await payInvoice((fresh.json() as { id: string }).id);
    await node.mine(1);
    await t.ctx.chains.pollNow();
    expect((await gf(t.app, viewKey, 'GET', `${base()}/${pr.id}`)).json()).toMatchObject({ status: 'Completed' });
    const mails = await mailsTo('kunde@example.com');
    expect(mails.map((m) => m.subject)).toEqual(['Zahlungsanforderung: Webseite, März', 'Vollständig bezahlt: Webseite, März']);
    expect(mails[1]!.text).toContain('Vielen Dank: Die Zahlungsanforderung Webseite, März ist vollständig bezahlt.');

    const paid = await gf(t.app, viewKey, 'POST', `${base()}/${pr.id}/pay`, {});
    expect(paid.statusCode).toBe(400);
    expect(paid.json()).toMatchObject({ code: 'already-paid' });
  }, 120_000);

  it('without an amount the invoice is for what is due; bad bodies are 422, an archived request 400 archived, an unknown one 404', async () => {
    const pr = (await gf(t.app, key, 'POST', base(), { amount: '25.50', currency: 'EUR', title: 'Fixed' })).json() as { id: string };
    const invoices = async () => (await t.ctx.db.kysely.selectFrom('greenfield_invoices').select('id').execute()).length;
    const before = await invoices();
    for (const body of [{ amount: 12 }, { amount: 'lots' }, { amount: '10' }, { amount: '30' }, { allowPendingInvoiceReuse: 'yes' }, { other: 1 }]) {
      const res = await gf(t.app, viewKey, 'POST', `${base()}/${pr.id}/pay`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(schemaErrors(ValidationErrors, res.json())).toEqual([]);
    }
    expect(await invoices()).toBe(before);
    const whole = await gf(t.app, viewKey, 'POST', `${base()}/${pr.id}/pay`);
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.json()).toMatchObject({ amount: '25.5', currency: 'EUR' });

    expect((await gf(t.app, key, 'DELETE', `${base()}/${pr.id}`)).statusCode).toBe(200);
    const archived = await gf(t.app, viewKey, 'POST', `${base()}/${pr.id}/pay`, {});
    expect(archived.statusCode).toBe(400);
    expect(archived.json()).toMatchObject({ code: 'archived' });
    const unknown = await gf(t.app, viewKey, 'POST', `${base()}/req_aaaaaaaaaaaaaaaaaaaaaaaa/pay`, {});
    expect(unknown.statusCode).toBe(404);
    expect(schemaErrors(ApiError, unknown.json())).toEqual([]);
  });
});
