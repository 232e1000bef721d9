// Who is mailed a refund link asked by transaction (operation 24, the console's refund button): whoever holds the
// link chooses where the refund goes, so it is mailed only when the refunded credit belongs to one buyer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { payWallet, sessionOwning } from '../../test/support/refund-fixtures.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { satsFromBtc } from '../money/money.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('the recipient of a refund link on %s', (engine) => {
  let t: TestApp;
  let store: string;
  let key: string;
  let wallet: WalletRow;
  let session: string;

  /** A Greenfield invoice of 20 EUR with the buyer's e-mail: its payment destination. */
  async function invoice(orderId: string, buyerEmail: string): Promise<{ script: Uint8Array; amount: bigint }> {
    const res = await gf(t.app, key, 'POST', `/api/v1/stores/${store}/invoices`, { amount: '20.00', currency: 'EUR', metadata: { orderId, buyerEmail } });
    expect(res.statusCode, res.body).toBe(200);
    const [pm] = (await gf(t.app, key, 'GET', `/api/v1/stores/${store}/invoices/${(res.json() as { id: string }).id}/payment-methods`)).json() as { destination: string; amount: string }[];
    return { script: decodeAddress(pm!.destination).script, amount: satsFromBtc(pm!.amount) };
  }
  async function refundOf(txid: string): Promise<string> {
    const res = await t.app.inject({ method: 'POST', url: '/refund_request', payload: { auth_token: session, tx_id: txid, refund_amount: '0.0001' } });
    const body = res.json() as { return: string; refund: { refund_form_token: string } };
    expect(body.return, res.body).toBe('0');
    return body.refund.refund_form_token;
  }
  const mailsTo = async (email: string) => (await t.ctx.db.kysely.selectFrom('outbox').select('id').where('kind', '=', 'email').where('target', '=', email).execute()).length;

  beforeAll(async () => {
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ EUR: '40000' }) },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
    store = await addSandboxWallet(t.app, { account_name: 'Recipient Shop', local_currency: 'EUR' });
    key = await greenfieldKey(t.ctx, store);
    wallet = (await t.ctx.wallets.repo.findByApiId(store))!;
    session = await sessionOwning(t.ctx, 'shop@example.test', [wallet.id]);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a refund of one transaction that paid two buyers’ invoices mails neither', async () => {
    const paid = await node.payMany([await invoice('21', 'buyer21@example.test'), await invoice('22', 'buyer22@example.test')]);
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await refundOf(paid.txid);
    expect([await mailsTo('buyer21@example.test'), await mailsTo('buyer22@example.test')]).toEqual([0, 0]);
  });

  it('a refund of a transaction that paid one buyer’s invoice mails that buyer', async () => {
    const to = await invoice('23', 'buyer23@example.test');
    const paid = await node.pay(to.script, to.amount);
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await refundOf(paid.txid);
    expect(await mailsTo('buyer23@example.test')).toBe(1);
  });

  it('an address that served two orders with different e-mails mails nobody, unless an order’s report names the transaction', async () => {
    const order = (addressId: bigint, email: string, snapshot: string) => {
      const now = BigInt(Date.now());
      return t.ctx.db.kysely
        .insertInto('address_orders')
        .values({ address_id: addressId, wallet_id: wallet.id, client_txid: null, return_email: email, local_currency: 'eur', order_amount: null, exchange_rate: '40000', exchange_rate_at: now, rate_lock_expires_at: now, client_public_key: null, payload_json: null, created_at: now, reserved_until: now, tx_snapshot_json: snapshot })
        .execute();
    };
    const addressOf = async (address: string) => (await t.ctx.db.kysely.selectFrom('addresses').select('id').where('address', '=', address).executeTakeFirstOrThrow()).id;

    const first = await payWallet(t.ctx, node, wallet, [90_000n]);
    const a = await addressOf(first.addresses[0]!);
    await order(a, 'earlier@example.test', '{}');
    await order(a, 'later@example.test', '{}');
    await refundOf(first.txid);
    expect([await mailsTo('earlier@example.test'), await mailsTo('later@example.test')]).toEqual([0, 0]);

    const second = await payWallet(t.ctx, node, wallet, [90_000n]);
    const b = await addressOf(second.addresses[0]!);
    await order(b, 'expired@example.test', '{}');
    await order(b, 'payer@example.test', JSON.stringify({ [second.txid]: true }));
    await refundOf(second.txid);
    expect([await mailsTo('expired@example.test'), await mailsTo('payer@example.test')]).toEqual([0, 1]);
  });
});
