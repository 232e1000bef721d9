import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { inMempool, payWallet, sessionOwning } from '../../test/support/refund-fixtures.ts';
import { addressForPublicKey } from '../bitcoin/address.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import { satsFromBtc } from '../money/money.ts';
import { expectFeeAtRate } from '../../test/support/fee-rate.ts';

const payee = () => addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');

describe.each(testEngines())('refunds from a service-held wallet on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;
  let wallet: WalletRow;
  let token: string;
  let payment: { txid: string };

  async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
    const res = await t.app.inject({ method: 'POST', url, payload: body as object, headers });
    return { status: res.statusCode, body: res.json() as Record<string, any> };
  }
  const refundCount = async () => (await t.ctx.db.kysely.selectFrom('refunds').select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow()).n;

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, { chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } }, env: { SATGATE_FALLBACK_FEE_RATE: '3' } });
    const added = await post('/add_pub', { pub: 'new_wallet', currency: 'testBTC', notification_email: 'shop@example.test', return_url: 'https://shop.example.test/hook' });
    wallet = (await t.ctx.wallets.repo.findByApiId(added.body.api_id))!;
    token = await sessionOwning(t.ctx, 'shop@example.test', [wallet.id]);
    await t.ctx.chains.pollNow();
    payment = await payWallet(t.ctx, node, wallet, [300_000n]);
    await payWallet(t.ctx, node, wallet, [200_000n]);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  it('a partial refund is requested, its address set, and it is sent, confirmed and listed with the chain', async () => {
    const requested = await post('/refund_request', { auth_token: token, tx_id: payment.txid, refund_amount: '0.001' });
    expect(requested.status).toBe(200);
    const form = requested.body.refund as { refund_form_token: string; refund_form_url: string };
    expect(form.refund_form_url).toBe(`${t.ctx.config.publicUrl}/refund/${form.refund_form_token}`);
    expect(form.refund_form_token.length).toBeGreaterThanOrEqual(22);

    const to = payee();
    const set = await post('/set_refund_addr', { refund_form_token: form.refund_form_token, refund_addr: to });
    expect(set.body).toMatchObject({ return: '0', refund: { status: 'Processing', tx_id: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    const txid = set.body.refund.tx_id as string;
    expect(await inMempool(node, txid)).toBe(true);
    const spend = (await t.ctx.spending.list(wallet.id)).find((s) => s.txid === txid)!;
    // The node has no estimate on a fresh regtest chain, so the fallback rate applies; the fee is exact.
    expect(spend.fee_rate).toBe(await t.ctx.spending.feeRate('test'));
    expectFeeAtRate(spend.fee_sats, spend.fee_rate, spend.vsize);
    const tx = Transaction.fromRaw(Buffer.from(spend.raw_hex, 'hex'));
    expect(tx.getOutput(0).amount).toBe(100_000n);

    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    const list = await t.app.inject({ method: 'GET', url: '/refunds', headers: { authorization: token } });
    expect(list.json().refunds[0]).toMatchObject({ refund_amount: '0.001', refund_addr: to, status: 'Processing', state: 'confirmed', tx_id: txid, confirmations: 1, refunded_tx_id: payment.txid });

    // The wallet's transaction list shows the debit and the change credit, and the balance agrees with the node.
    const txs = (await t.ctx.wallets.monitor.walletTransactions(wallet.pub)).filter((x) => x.txid === txid);
    expect(txs.some((x) => x.debit === 1)).toBe(true);
    expect(txs.some((x) => x.debit === 0)).toBe(true);
    const sats = (v: string) => (v.startsWith('-') ? -satsFromBtc(v.slice(1)) : satsFromBtc(v));
    const net = txs.reduce((s, x) => s + sats(String(x.value)), 0n);
    expect(net).toBe(-(100_000n + spend.fee_sats));

    const events = await t.ctx.db.kysely.selectFrom('outbox').select(['kind', 'target', 'payload_json']).execute();
    const refundEvents = events.map((e) => ({ kind: e.kind, target: e.target, ...JSON.parse(e.payload_json) })).filter((e) => e.event === 'refund');
    for (const cause of ['address_set', 'broadcast', 'confirmed']) {
      expect(refundEvents.filter((e) => e.refund_event === cause).map((e) => e.kind).sort()).toEqual(['email', 'webhook']);
    }
  });

  it('refuses more than the credit left, someone else’s transaction, wrong-network and malformed addresses, and a second address', async () => {
    const before = await refundCount();
    const tooMuch = await post('/refund_request', { auth_token: token, tx_id: payment.txid, refund_amount: '0.00200001' });
    expect(tooMuch).toMatchObject({ status: 400, body: { return: '201', status: expect.stringContaining('more than what is left') } });
    const number = await post('/refund_request', { auth_token: token, tx_id: payment.txid, refund_amount: 0.0001 });
    expect(number.body.return).toBe('201');

    const other = await post('/add_pub', { pub: 'new_wallet', currency: 'testBTC' });
    const otherWallet = (await t.ctx.wallets.repo.findByApiId(other.body.api_id))!;
    const foreign = await payWallet(t.ctx, node, otherWallet, [50_000n]);
    const notMine = await post('/refund_request', { auth_token: token, tx_id: foreign.txid, refund_amount: '0.0001' });
    expect(notMine.body).toMatchObject({ return: '201', status: expect.stringContaining('not a payment received by one of your wallets') });
    const noSession = await post('/refund_request', { tx_id: payment.txid, refund_amount: '0.0001' });
    expect(noSession.body.return).toBe('302');
    expect(await refundCount()).toBe(before);

    const { body } = await post('/refund_request', { auth_token: token, tx_id: payment.txid, refund_amount: '0.0005' });
    const formToken = body.refund.refund_form_token as string;
    const mainnet = await post('/set_refund_addr', { refund_form_token: formToken, refund_addr: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' });
    expect(mainnet.body).toMatchObject({ return: '201', status: expect.stringContaining('not a valid regtest address') });
    const garbage = await post('/set_refund_addr', { refund_form_token: formToken, refund_addr: 'bcrt1qnotanaddress' });
    expect(garbage.body.return).toBe('201');
    const unknown = await post('/set_refund_addr', { refund_form_token: 'x'.repeat(32), refund_addr: payee() });
    expect(unknown.body.return).toBe('201');
    const row = await t.ctx.db.kysely.selectFrom('refunds').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ address: null, state: 'awaiting_address' });

    const first = await post('/set_refund_addr', { refund_form_token: formToken, refund_addr: payee() });
    expect(first.body.return).toBe('0');
    const second = await post('/set_refund_addr', { refund_form_token: formToken, refund_addr: payee() });
    expect(second.body).toMatchObject({ return: '201', status: expect.stringContaining('already set') });
    const after = await t.ctx.db.kysely.selectFrom('refunds').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(after.address).toBe((await t.ctx.db.kysely.selectFrom('spend_outputs').select('address').where('spend_id', '=', after.spend_id!).where('n', '=', 0n).executeTakeFirstOrThrow()).address);
  });

  it('the same Idempotency-Key answers the same refund form', async () => {
    const headers = { 'idempotency-key': 'refund-42' };
    const a = await post('/refund_request', { auth_token: token, tx_id: payment.txid, refund_amount: '0.0001' }, headers);
    const b = await post('/refund_request', { auth_token: token, tx_id: payment.txid, refund_amount: '0.0001' }, headers);
    expect(b.body.refund).toEqual(a.body.refund);
    const c = await post('/refund_request', { auth_token: token, tx_id: payment.txid, refund_amount: '0.0002' }, headers);
    expect(c.body.return).toBe('201');
  });

  it('mails the payer the refund link, then the transaction id, when their order gave an e-mail', async () => {
    const paid = await payWallet(t.ctx, node, wallet, [90_000n]);
    const address = await t.ctx.db.kysely.selectFrom('addresses').select('id').where('address', '=', paid.addresses[0]!).executeTakeFirstOrThrow();
    const now = BigInt(Date.now());
    // The order set_addr made for this address, with the payer's return_email.
    await t.ctx.db.kysely
      .insertInto('address_orders')
      .values({ address_id: address.id, wallet_id: wallet.id, client_txid: null, return_email: 'payer@example.test', local_currency: 'usd', order_amount: null, exchange_rate: '50000', exchange_rate_at: now, rate_lock_expires_at: now, client_public_key: null, payload_json: null, created_at: now, reserved_until: now })
      .execute();
    const { body } = await post('/refund_request', { auth_token: token, tx_id: paid.txid, refund_amount: '0.0003' });
    const set = await post('/set_refund_addr', { refund_form_token: body.refund.refund_form_token, refund_addr: payee() });
    const mails = (await t.ctx.db.kysely.selectFrom('outbox').select(['kind', 'target', 'payload_json']).where('target', '=', 'payer@example.test').orderBy('id').execute()).map((m) => ({
      kind: m.kind,
      ...(JSON.parse(m.payload_json) as Record<string, unknown>),
    }));
    expect(mails).toEqual([
      expect.objectContaining({ kind: 'email', refund_event: 'requested' }),
      expect.objectContaining({ kind: 'email', refund_event: 'broadcast', tx_id: set.body.refund.tx_id }),
    ]);
    // The link lets whoever holds it choose the refund address: the stored mail is sealed, the token never in clear.
    expect(JSON.stringify(mails[0])).not.toContain(body.refund.refund_form_token);
    const { openSealedMail } = await import('../notify/sealed-mail.ts');
    expect(openSealedMail(t.ctx.masterKey, mails[0]!)!.text).toContain(body.refund.refund_form_url);
    const { renderEventMail } = await import('../notify/event-mail.ts');
    expect(renderEventMail(mails[1]!).text).toContain(set.body.refund.tx_id);
  });

  it("mails the refund link to the e-mail a payment form's payer gave", async () => {
    const paid = await payWallet(t.ctx, node, wallet, [80_000n]);
    const address = await t.ctx.db.kysely.selectFrom('addresses').select('id').where('address', '=', paid.addresses[0]!).executeTakeFirstOrThrow();
    const now = BigInt(Date.now());
    await t.ctx.db.kysely
      .insertInto('payment_forms')
      .values({
        token_hash: `test-${now}`, wallet_id: wallet.id, address_id: address.id, order_id: 'o-1', order_amount: '40.00', order_currency: 'USD',
        user_id: null, user_email: 'form-payer@example.test', payment_cancel_url: 'https://shop.example/cancel', payment_complete_url: 'https://shop.example/done',
        payment_update_url: 'https://shop.example/update', site_name: 'Shop', user_fields_json: '[]', auth_token_sealed: 'x', auth_token_hash: `auth-${now}`,
        fields_submitted_at: now, lock_expires_at: now, order_status: 'paid', payment_status: 'confirmed', status_at: now, tx_snapshot_json: '[]', open_txs: 0n, created_at: now,
      })
      .execute();
    const { body } = await post('/refund_request', { auth_token: token, tx_id: paid.txid, refund_amount: '0.0002' });
    expect(body.return).toBe('0');
    const mails = await t.ctx.db.kysely.selectFrom('outbox').select(['kind', 'payload_json']).where('target', '=', 'form-payer@example.test').execute();
    expect(mails).toHaveLength(1);
    const { openSealedMail } = await import('../notify/sealed-mail.ts');
    expect(openSealedMail(t.ctx.masterKey, JSON.parse(mails[0]!.payload_json))!.text).toContain(body.refund.refund_form_url);
  });

  it('20 concurrent refunds of one wallet are each sent exactly once and no coin is spent twice', async () => {
    const funded = await payWallet(t.ctx, node, wallet, Array.from({ length: 4 }, () => 2_000_000n));
    const forms = [];
    for (let i = 0; i < 20; i++) {
      const r = await post('/refund_request', { auth_token: token, tx_id: funded.txid, refund_amount: `0.00${10 + i}` });
      expect(r.body.return).toBe('0');
      forms.push(r.body.refund.refund_form_token as string);
    }
    const addresses = forms.map(() => payee());
    const answers = await Promise.all(forms.map((f, i) => post('/set_refund_addr', { refund_form_token: f, refund_addr: addresses[i] })));
    for (const a of answers) expect(a.body.return).toBe('0');
    await t.ctx.refunds.sendScheduled();
    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();

    const refunds = await t.ctx.db.kysely.selectFrom('refunds').selectAll().where('address', 'in', addresses).execute();
    expect(refunds.map((r) => r.state)).toEqual(Array(20).fill('confirmed'));
    const spends = await t.ctx.db.kysely.selectFrom('spends').selectAll().where('id', 'in', [...new Set(refunds.map((r) => r.spend_id!))]).execute();
    const inputs = spends.flatMap((s) => {
      const tx = Transaction.fromRaw(Buffer.from(s.raw_hex, 'hex'));
      return Array.from({ length: tx.inputsLength }, (_, i) => `${Buffer.from(tx.getInput(i).txid!).toString('hex')}:${tx.getInput(i).index}`);
    });
    expect(new Set(inputs).size).toBe(inputs.length);
    // Each refund address received exactly one output, of exactly its amount.
    const paidOut = spends.flatMap((s) => {
      const tx = Transaction.fromRaw(Buffer.from(s.raw_hex, 'hex'));
      return Array.from({ length: tx.outputsLength }, (_, i) => tx.getOutput(i));
    });
    for (const r of refunds) {
      const script = Buffer.from(r.script_hex!, 'hex');
      const hits = paidOut.filter((o) => Buffer.from(o.script!).equals(script));
      expect(hits.map((h) => h.amount)).toEqual([r.amount_sats]);
    }
  });
});
