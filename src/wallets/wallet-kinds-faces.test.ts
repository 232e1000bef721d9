// Payment forms and Greenfield invoices on a multisig and a taproot wallet: the address each face issues is the
// wallet's own (the descriptor's receive branch), and a Greenfield invoice paid on regtest is seen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { cosigner } from '../../test/support/cosigner-keys.ts';
import { gf, greenfieldKey } from '../../test/support/greenfield.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { keyOf } from '../bitcoin/wallet-key.ts';
import { satsFromBtc } from '../money/money.ts';

describe.each(testEngines())('payment forms and Greenfield invoices on multisig and taproot wallets on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile() },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
  });

  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  async function register(pub: string): Promise<{ apiId: string; descriptor: string }> {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, currency: 'testBTC' } });
    expect(res.json(), res.body).toMatchObject({ return: '0' });
    const apiId = res.json().api_id as string;
    const row = await t.ctx.db.kysely.selectFrom('wallets').select('descriptor').where('api_id', '=', apiId).executeTakeFirstOrThrow();
    return { apiId, descriptor: row.descriptor! };
  }

  async function indexOf(address: string): Promise<number> {
    const row = await t.ctx.db.kysely.selectFrom('addresses').select('derivation_index').where('address', '=', address).executeTakeFirstOrThrow();
    return Number(row.derivation_index);
  }

  const shapes = {
    '2-of-3 wsh(sortedmulti)': () => {
      const [a, b, c] = [cosigner(), cosigner(), cosigner()];
      return `wsh(sortedmulti(2,${a.withOrigin}/<0;1>/*,${b.withOrigin}/<0;1>/*,${c.withOrigin}/<0;1>/*))`;
    },
    'tr()': () => `tr(${cosigner().withOrigin}/<0;1>/*)`,
  };

  for (const [shape, text] of Object.entries(shapes)) {
    it(`a ${shape} wallet: a payment form's address and a Greenfield invoice's destination are the wallet's own, and the paid invoice is seen`, async () => {
      const { apiId, descriptor } = await register(text());
      const key = keyOf({ descriptor }, 'regtest');

      const form = await t.app.inject({
        method: 'POST',
        url: '/payment_form',
        payload: {
          api_id: apiId,
          order_id: `ORD-${Math.random().toString(36).slice(2, 8)}`,
          order_amount: '25.00',
          order_currency: 'usd',
          user_email: 'payer@example.com',
          payment_cancel_url: 'https://shop.example/cart',
          payment_complete_url: 'https://shop.example/thanks',
          payment_update_url: 'https://shop.example/updates',
          site_name: 'Shop',
        },
      });
      expect(form.json(), form.body).toMatchObject({ return: '0' });
      const wallet = await t.ctx.db.kysely.selectFrom('wallets').select('id').where('api_id', '=', apiId).executeTakeFirstOrThrow();
      const formRow = await t.ctx.db.kysely
        .selectFrom('payment_forms as f')
        .innerJoin('addresses as a', 'a.id', 'f.address_id')
        .select(['a.address', 'a.derivation_index'])
        .where('f.wallet_id', '=', wallet.id)
        .executeTakeFirstOrThrow();
      expect(formRow.address).toBe(key.receive(Number(formRow.derivation_index)).address);

      const gfKey = await greenfieldKey(t.ctx, apiId);
      const created = await gf(t.app, gfKey, 'POST', `/api/v1/stores/${apiId}/invoices`, { amount: '25.00', currency: 'USD', metadata: { orderId: `gf-${shape}` } });
      expect(created.statusCode, created.body).toBe(200);
      const id = created.json().id as string;
      const [pm] = (await gf(t.app, gfKey, 'GET', `/api/v1/stores/${apiId}/invoices/${id}/payment-methods`)).json();
      expect(pm.destination).toBe(key.receive(await indexOf(pm.destination)).address);
      expect(pm.destination).not.toBe(formRow.address);

      await node.pay(decodeAddress(pm.destination).script, satsFromBtc(pm.amount as string));
      await t.ctx.chains.pollNow();
      expect((await gf(t.app, gfKey, 'GET', `/api/v1/stores/${apiId}/invoices/${id}`)).json()).toMatchObject({ status: 'Processing' });
      await node.mine(1);
      await t.ctx.chains.pollNow();
      expect((await gf(t.app, gfKey, 'GET', `/api/v1/stores/${apiId}/invoices/${id}`)).json()).toMatchObject({ status: 'Settled' });
    });
  }
});
