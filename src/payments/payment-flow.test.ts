// The custom integration flow of INTERFACE.md 4.4 end to end, over real HTTP against a bcoin regtest
// node: token, request, QR decoded back with jsQR (and zbarimg when installed), payment from the regtest payer, status polling
// through unconfirmed to confirmed, stored transitions, outbox rows, and signed webhooks received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCES, startSource, type RunningSource } from '../../test/support/chain-sources.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient } from '../../test/support/payment-api.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { verifyWebhookSignature } from '../notify/webhook-signature.ts';
import { isJsonObject, numericText, parseExactJson } from '../money/exact-json.ts';
import { satsFromBtc } from '../money/money.ts';
import { decodeQrJs, decodeQrZbar } from '../../test/support/qr-decode.ts';
import { onPath } from '../../test/support/system-tools.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

const cases = testEngines().flatMap((engine) => SOURCES.map((source) => [engine, source] as const));

describe.each(cases)('the custom payment flow on %s, reading the chain through the %s', (engine, sourceName) => {
  let source: RunningSource;
  let t: TestApp;
  let origin: string;
  let merchant: Server;
  const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];

  beforeAll(async () => {
    merchant = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
    source = await startSource(sourceName, node);
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' },
      chains: { test: { ...source.endpoint, network: 'regtest' } },
      start: true,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await t.ctx.chains.pollNow();
  });
  afterAll(async () => {
    await t?.close();
    await source?.stop();
    await new Promise((r) => merchant?.close(r));
  });

  async function poll(reference: string): Promise<Record<string, unknown>> {
    await t.ctx.chains.pollNow();
    const res = await fetch(`${origin}/api/v1/payment/${reference}`);
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  }

  it('token, request, QR, payment, unconfirmed, confirmed, with transitions, outbox rows and verified webhooks', async () => {
    const hookUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}/hooks/satgate`;
    const apiId = await addSandboxWallet(t.app, { account_name: 'Flow Shop', notification_email: 'owner@shop.example' });
    const client = await createClient(t.ctx, [apiId]);

    const tokenRes = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(tokenRes.status).toBe(200);
    const { access_token } = (await tokenRes.json()) as { access_token: string };

    const created = await fetch(`${origin}/api/v1/payment/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
      body: '{"type":"custom","api_id":"' + apiId + '","crypto_currency":"testBTC","order_currency":"USD","order_amount":12.34,' +
        '"payer_id":"p-1","payer_ip":"2001:db8::1","payer_phone":"+447911123456","notify_url":"' + hookUrl + '","webhook_data":{"cart_id":99}}',
    });
    const text = await created.text();
    expect(created.status, text).toBe(200);
    const record = parseExactJson(text);
    if (!isJsonObject(record)) throw new Error(text);
    const reference = String(record.payment_reference);
    const address = String(record.crypto_address);
    const cryptoAmount = numericText(record.crypto_amount)!;
    expect(cryptoAmount).toBe('0.0002468'); // 12.34 / 50000

    const png = Buffer.from(await (await fetch(`${origin}/api/v1/payment/${reference}/qrcode?width=300`)).arrayBuffer());
    expect(decodeQrJs(png)).toBe(`bitcoin:${address}?amount=${cryptoAmount}`);
    if (onPath('zbarimg')) expect(decodeQrZbar(png)).toBe(`bitcoin:${address}?amount=${cryptoAmount}`);

    const paid = await node.pay(decodeAddress(address).script, satsFromBtc(cryptoAmount));
    let status = await poll(reference);
    expect(status).toMatchObject({ status: 'unconfirmed', unconfirmed_crypto_amount: 0.0002468, unconfirmed_order_amount: 12.34, confirmed_crypto_amount: 0 });
    expect(status.unconfirmed_crypto_amt).toBe(0.0002468);

    await node.mine(1);
    status = await poll(reference);
    expect(status).toMatchObject({ status: 'confirmed', confirmed_crypto_amount: 0.0002468, confirmed_order_amount: 12.34, unconfirmed_crypto_amount: 0 });
    await node.mine(1);
    expect((await poll(reference)).status).toBe('confirmed');

    const db = t.testDb.db.kysely;
    const payment = await db.selectFrom('payments').select('id').where('reference', '=', reference).executeTakeFirstOrThrow();
    const transitions = await db.selectFrom('payment_transitions').selectAll().where('payment_id', '=', payment.id).orderBy('id').execute();
    expect(transitions.map((x) => [x.from_status, x.to_status, x.cause])).toEqual([
      [null, 'unpaid', 'created'],
      ['unpaid', 'unconfirmed', 'mempool'],
      ['unconfirmed', 'confirmed', 'block'],
    ]);
    const outbox = await db.selectFrom('outbox').selectAll().where('payment_id', '=', payment.id).orderBy('id').execute();
    expect(outbox.map((o) => [o.kind, o.target, JSON.parse(o.payload_json).status])).toEqual([
      ['webhook', hookUrl, 'unconfirmed'],
      ['email', 'owner@shop.example', 'unconfirmed'],
      ['webhook', hookUrl, 'confirmed'],
      ['email', 'owner@shop.example', 'confirmed'],
    ]);

    // The delivery worker sends them; each verifies with the webhook secret.
    for (let i = 0; i < 100 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(received.length).toBe(2);
    for (const r of received) {
      expect(verifyWebhookSignature(String(r.headers['x-satgate-signature']), r.body, client.webhook_secret)).toBe(true);
      const event = JSON.parse(r.body) as Record<string, unknown>;
      expect(event).toMatchObject({
        event: 'payment',
        api_id: apiId,
        payment_reference: reference,
        crypto_address: address,
        webhook_data: { cart_id: 99 },
        event_id: expect.stringMatching(/^evt_/),
      });
      for (const f of ['unconfirmed_crypto', 'confirmed_crypto', 'unconfirmed_order', 'confirmed_order']) {
        expect(event[`${f}_amt`]).toBe(event[`${f}_amount`]);
      }
    }
    expect(received.map((r) => (JSON.parse(r.body) as { status: string }).status).sort()).toEqual(['confirmed', 'unconfirmed']);
    expect(paid.txid).toMatch(/^[0-9a-f]{64}$/);
  });
});
