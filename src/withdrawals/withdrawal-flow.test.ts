// The partner walk-through of issue 13 end to end over real HTTP, against a bcoin regtest node, on each
// database engine: partner, merchant wallet, KYC (PNG + PDF), approval by the CLI, a payment received at a
// set_addr address, a EUR quote, a confirmed withdrawal whose transaction pays the settlement address
// exactly crypto_amount, `success` after confirmation, and the partner's signed webhooks along the way.
// Then: expiry with an injected clock, two concurrent withdrawals over the balance, refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction } from '@scure/btc-signer';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, TEST_MASTER_KEY, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { runCli } from '../../test/support/server-process.ts';
import { httpJson } from '../../test/support/http-json.ts';
import { addressForPublicKey, decodeAddressFor } from '../bitcoin/address.ts';
import { verifyWebhookSignature } from '../notify/webhook-signature.ts';
import { fiatToSats, satsFromBtc } from '../money/money.ts';
import { QUOTE_TTL_MS } from './withdrawals.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f7d6a90000000049454e44ae426082', 'hex');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n', 'latin1');
const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
const EUR_RATE = '46000.50';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('partner merchant withdrawals on %s', (engine) => {
  let t: TestApp;
  let origin: string;
  let hooks: Server;
  const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  let offset = 0;
  const clock = () => Date.now() + offset;
  let partnerKey: string;
  let webhookSecret: string;
  const settlement = addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    hooks = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: EUR_RATE }), SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      clock,
      start: true,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await t.ctx.chains.pollNow();
    const keyDir = mkdtempSync(join(tmpdir(), 'satgate-mk-'));
    writeFileSync(join(keyDir, 'master.key'), `${Buffer.alloc(32, 7).toString('hex')}\n`, { mode: 0o600 });
    cliEnv = { ...t.testDb.env, SATGATE_MASTER_KEY_FILE: join(keyDir, 'master.key'), SATGATE_ALLOW_PRIVATE_WEBHOOKS: '1' };
    const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/partner-hooks`;
    const created = await runCli(['partner', 'create', '--name', 'Market', '--test', '--settlement-address', settlement, '--webhook-url', hookUrl, '--json'], cliEnv);
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout) as { partner_auth_key: string; webhook_secret: string; network: string };
    expect(out.network).toBe('regtest');
    partnerKey = out.partner_auth_key;
    webhookSecret = out.webhook_secret;
    expect(TEST_MASTER_KEY.unseal(TEST_MASTER_KEY.seal('x')).toString()).toBe('x');
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await new Promise((r) => hooks?.close(r));
  });

  const call = (method: string, path: string, body?: unknown) => httpJson(method, `${origin}${path}`, body);

  async function newMerchant(id: string) {
    const res = await call('POST', '/partner_merchant_wallet', {
      partner_auth_key: partnerKey,
      merchant_name: `Shop ${id}`,
      partner_merchant_id: id,
      contact: { email: `owner@${id}.example`, phone: '+33142685300' },
      bank_info: { iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' },
      local_currency: 'EUR',
    });
    expect(res.json.result, JSON.stringify(res.json)).toBe('0');
    return res.json as { merchant_api_id: string; merchant_auth_key: string; withdrawal_auth_key: string; wallet_status: string };
  }

  async function upload(m: { merchant_api_id: string; merchant_auth_key: string }, docId: string, url: string) {
    return call('POST', '/partner_merchant_kyc', { partner_auth_key: partnerKey, merchant_api_id: m.merchant_api_id, merchant_auth_key: m.merchant_auth_key, doc_id: docId, description: docId, base64: url });
  }

  /** Pays `btc` to a fresh set_addr address of the wallet and confirms it. */
  async function receive(apiId: string, btc: string): Promise<string> {
    const addr = await call('POST', '/set_addr', { api_id: apiId });
    expect(addr.json.return).toBe('0');
    const script = decodeAddressFor(addr.json.addr, 'regtest').script;
    await node.pay(script, satsFromBtc(btc));
    await node.mine(1);
    await t.ctx.chains.pollNow();
    return String(addr.json.addr);
  }

  async function activeMerchant(id: string, btc?: string) {
    const m = await newMerchant(id);
    expect((await upload(m, 'id-card', dataUrl('image/png', PNG))).json.result).toBe('0');
    await t.ctx.partners.kyc.approve(m.merchant_api_id);
    if (btc) await receive(m.merchant_api_id, btc);
    return m;
  }

  async function settlementOutputs(txid: string): Promise<bigint[]> {
    // bcoin accepts a broadcast transaction into its mempool asynchronously.
    let raw = await node.rpc.getRawTransaction(txid);
    for (let i = 0; raw === null && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 10));
      raw = await node.rpc.getRawTransaction(txid);
    }
    expect(raw).not.toBeNull();
    const tx = Transaction.fromRaw(raw!, { allowUnknownOutputs: true });
    const target = Buffer.from(decodeAddressFor(settlement, 'regtest').script).toString('hex');
    const amounts: bigint[] = [];
    for (let i = 0; i < tx.outputsLength; i++) {
      const o = tx.getOutput(i);
      if (Buffer.from(o.script!).toString('hex') === target) amounts.push(o.amount!);
    }
    return amounts;
  }

  /** Every partner webhook received so far, verified, in the order the outbox queued them (deliveries run in parallel). */
  async function webhookEvents(): Promise<Record<string, unknown>[]> {
    for (let i = 0; i < 100; i++) {
      await t.ctx.notify.worker.runOnce();
      const due = await t.ctx.db.kysely.selectFrom('outbox').select('id').where('state', '=', 'pending').execute();
      if (due.length === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const order = new Map((await t.ctx.db.kysely.selectFrom('outbox').select(['id', 'event_id']).execute()).map((r) => [r.event_id, r.id]));
    const events = received.map((r) => {
      expect(verifyWebhookSignature(String(r.headers['x-satgate-signature']), r.body, webhookSecret, 3600)).toBe(true);
      return JSON.parse(r.body) as Record<string, unknown>;
    });
    return events.sort((a, b) => Number((order.get(String(a.event_id)) ?? 0n) - (order.get(String(b.event_id)) ?? 0n)));
  }


  it('walks create → KYC → CLI approval → payment → EUR quote → withdrawal → success, paying the settlement address exactly crypto_amount', async () => {
    const m = await newMerchant('walk-1');
    expect(m.wallet_status).toBe('pending_kyc');
    expect((await upload(m, 'passport', dataUrl('image/png', PNG))).json).toMatchObject({ result: '0', doc_id: 'passport' });
    expect((await upload(m, 'registry', dataUrl('application/pdf', PDF))).json).toMatchObject({ result: '0', doc_id: 'registry' });

    const listed = await runCli(['kyc', 'list', '--json'], cliEnv);
    expect(listed.code, listed.stderr).toBe(0);
    const docs = (JSON.parse(listed.stdout) as { merchant_api_id: string; doc_id: string; mime_type: string }[]).filter((d) => d.merchant_api_id === m.merchant_api_id);
    expect(docs.map((d) => [d.doc_id, d.mime_type])).toEqual([['passport', 'image/png'], ['registry', 'application/pdf']]);
    const outFile = join(mkdtempSync(join(tmpdir(), 'satgate-kyc-')), 'registry.pdf');
    expect((await runCli(['kyc', 'show', m.merchant_api_id, 'registry', '--out', outFile], cliEnv)).code).toBe(0);
    expect(readFileSync(outFile).equals(PDF)).toBe(true);
    const approved = await runCli(['kyc', 'approve', m.merchant_api_id], cliEnv);
    expect(approved.code, approved.stderr).toBe(0);
    const status = await call('GET', '/partner_merchant_wallet', { partner_auth_key: partnerKey, merchant_api_id: m.merchant_api_id, merchant_auth_key: m.merchant_auth_key });
    expect(status.json).toMatchObject({ result: '0', wallet_status: 'active', partner_merchant_id: 'walk-1' });

    await receive(m.merchant_api_id, '0.01');

    const quote = await call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount: 150.25 });
    expect(quote.status, JSON.stringify(quote.json)).toBe(200);
    const expectedSats = fiatToSats('150.25', EUR_RATE);
    expect(quote.json).toMatchObject({ result: '0', status: 'OK', merchant_api_id: m.merchant_api_id, exchange_rate: 46000.5, amount: 150.25, local_currency: 'EUR' });
    expect(satsFromBtc(String(quote.json.crypto_amount))).toBe(expectedSats);
    const withdrawalId = String(quote.json.withdrawal_id);

    const confirm = await call('POST', '/withdrawal', { withdrawal_id: withdrawalId, withdrawal_auth_key: m.withdrawal_auth_key });
    expect(confirm.json).toMatchObject({ result: '0', withdrawal_id: withdrawalId, withdrawal_status: 'pending' });
    const again = await call('POST', '/withdrawal', { withdrawal_id: withdrawalId, withdrawal_auth_key: m.withdrawal_auth_key });
    expect(again.json.withdrawal_status).toBe('pending');

    await t.ctx.withdrawals.sender.runOnce();
    const sent = await call('GET', `/withdrawal?withdrawal_id=${withdrawalId}`);
    expect(sent.json).toMatchObject({ result: '0', withdrawal_status: 'pending' });
    const txid = String(sent.json.tx_id);
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    expect(await settlementOutputs(txid)).toEqual([expectedSats]);
    expect(await t.ctx.db.kysely.selectFrom('spends').select('id').where('purpose', '=', 'withdrawal').where('reference', '=', withdrawalId).execute()).toHaveLength(1);

    await node.mine(1);
    await t.ctx.chains.pollNow();
    const done = await call('POST', '/withdrawal', { withdrawal_id: withdrawalId });
    expect(done.json).toMatchObject({ result: '0', withdrawal_status: 'success', tx_id: txid });

    const events = (await webhookEvents()).filter((e) => e.merchant_api_id === m.merchant_api_id);
    expect(events.filter((e) => e.event === 'partner_merchant_wallet').map((e) => e.wallet_status)).toEqual(['active']);
    expect(events.filter((e) => e.event === 'withdrawal').map((e) => e.withdrawal_status)).toEqual(['pending', 'success']);
    expect(events.find((e) => e.withdrawal_status === 'success')).toMatchObject({ withdrawal_id: withdrawalId, tx_id: txid, settlement_address: settlement });
    const row = await t.ctx.db.kysely.selectFrom('withdrawals').select('id').where('withdrawal_id', '=', withdrawalId).executeTakeFirstOrThrow();
    const transitions = await t.ctx.db.kysely.selectFrom('withdrawal_transitions').selectAll().where('withdrawal_id', '=', row.id).orderBy('id').execute();
    expect(transitions.map((x) => `${x.from_status}->${x.to_status}`)).toEqual(['null->quoted', 'quoted->pending', 'pending->success']);
  }, 120_000);

  it('a reorg that removes the settlement transaction\'s block turns success back into pending, until it is mined again', async () => {
    const m = await activeMerchant('reorg-1', '0.003');
    const quote = await call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount: 20 });
    const id = String(quote.json.withdrawal_id);
    expect((await call('POST', '/withdrawal', { withdrawal_id: id, withdrawal_auth_key: m.withdrawal_auth_key })).json.withdrawal_status).toBe('pending');
    await t.ctx.withdrawals.sender.runOnce();
    const txid = String((await call('GET', '/withdrawal', { withdrawal_id: id })).json.tx_id);
    await settlementOutputs(txid);
    await node.mine(1);
    await t.ctx.chains.pollNow();
    expect((await call('GET', '/withdrawal', { withdrawal_id: id })).json.withdrawal_status).toBe('success');
    await node.reorg(1, 2);
    await t.ctx.chains.pollNow();
    expect((await call('GET', '/withdrawal', { withdrawal_id: id })).json).toMatchObject({ withdrawal_status: 'pending', tx_id: txid });
    await node.mine(1);
    await t.ctx.chains.pollNow();
    expect((await call('GET', '/withdrawal', { withdrawal_id: id })).json.withdrawal_status).toBe('success');
    const events = (await webhookEvents()).filter((e) => e.withdrawal_id === id).map((e) => e.withdrawal_status);
    expect(events).toEqual(['pending', 'success', 'pending', 'success']);
  }, 60_000);

  it('a quote confirmed after 15 minutes (injected clock) is refused and changes nothing', async () => {
    const m = await activeMerchant('expiry-1', '0.005');
    const quote = await call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount: 10 });
    expect(quote.json.result).toBe('0');
    offset += QUOTE_TTL_MS + 1_000;
    try {
      const late = await call('POST', '/withdrawal', { withdrawal_id: quote.json.withdrawal_id, withdrawal_auth_key: m.withdrawal_auth_key });
      expect(late.status).toBe(400);
      expect(late.json).toMatchObject({ result: '201' });
      expect(String(late.json.status)).toMatch(/quote expired at .*ask for a new quote/);
      const row = await t.ctx.db.kysely.selectFrom('withdrawals').selectAll().where('withdrawal_id', '=', String(quote.json.withdrawal_id)).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'quoted', spend_id: null, confirmed_at: null });
      expect((await call('GET', '/withdrawal', { withdrawal_id: quote.json.withdrawal_id })).json.withdrawal_status).toBe('expired');
    } finally {
      offset -= QUOTE_TTL_MS + 1_000;
    }
  }, 60_000);

  it('two concurrent withdrawals that together exceed the balance: one is pending, the other refused, nothing overspent', async () => {
    const m = await activeMerchant('race-1', '0.004');
    // Each quote alone fits (0.0025 BTC of 0.004); both together do not.
    const amount = 115; // EUR: 0.0025 BTC at 46000.50
    const [q1, q2] = await Promise.all([1, 2].map(() => call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount })));
    expect(q1!.json.result).toBe('0');
    expect(q2!.json.result).toBe('0');
    const answers = await Promise.all(
      [q1!, q2!].map((q) => call('POST', '/withdrawal', { withdrawal_id: q.json.withdrawal_id, withdrawal_auth_key: m.withdrawal_auth_key })),
    );
    const ok = answers.filter((a) => a.json.withdrawal_status === 'pending');
    const refused = answers.filter((a) => a.json.result === '201');
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(String(refused[0]!.json.status)).toMatch(/insufficient balance/);
    await t.ctx.withdrawals.sender.runOnce();
    const spends = await t.ctx.db.kysely
      .selectFrom('spends as s')
      .innerJoin('withdrawals as w', 'w.spend_id', 's.id')
      .select(['s.txid', 'w.crypto_sats'])
      .where('w.partner_wallet_id', '=', (await t.ctx.db.kysely.selectFrom('partner_wallets as pw').innerJoin('wallets as wa', 'wa.id', 'pw.wallet_id').select('pw.id').where('wa.api_id', '=', m.merchant_api_id).executeTakeFirstOrThrow()).id)
      .execute();
    expect(spends).toHaveLength(1);
    expect(await settlementOutputs(spends[0]!.txid)).toEqual([spends[0]!.crypto_sats]);
    // A third quote now sees only what is left.
    const third = await call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount });
    expect(third.json.result).toBe('201');
    expect(String(third.json.status)).toMatch(/insufficient balance/);
  }, 60_000);

  it('refuses withdrawals of a pending_kyc wallet, and wrong or misplaced withdrawal keys indistinguishably from unknown IDs', async () => {
    const pending = await newMerchant('kyc-pending-1');
    await receive(pending.merchant_api_id, '0.002');
    const refused = await call('GET', '/withdrawal_quote', { merchant_api_id: pending.merchant_api_id, withdrawal_auth_key: pending.withdrawal_auth_key, amount: 5 });
    expect(refused.status).toBe(400);
    expect(String(refused.json.status)).toMatch(/pending_kyc, not active/);

    const m = await activeMerchant('keys-1', '0.002');
    const q = new URLSearchParams({ merchant_api_id: m.merchant_api_id, withdrawal_auth_key: `${m.withdrawal_auth_key.slice(0, -2)}zz`, amount: '5' });
    const wrongKey = await call('GET', `/withdrawal_quote?${q}`);
    const unknown = await call('GET', '/withdrawal_quote', { merchant_api_id: 'test_00000000000000000000000000000000', withdrawal_auth_key: m.withdrawal_auth_key, amount: 5 });
    const merchantKey = await call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.merchant_auth_key, amount: 5 });
    const otherWallet = await call('GET', '/withdrawal_quote', { merchant_api_id: pending.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount: 5 });
    for (const r of [wrongKey, unknown, merchantKey, otherWallet]) {
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ result: '303', status: 'Token invalid: merchant_api_id and withdrawal_auth_key do not match' });
    }

    const quote = await call('GET', `/withdrawal_quote?${new URLSearchParams({ merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount: '5.5' })}`);
    expect(quote.json.result).toBe('0');
    const confirmWrong = await call('POST', '/withdrawal', { withdrawal_id: quote.json.withdrawal_id, withdrawal_auth_key: pending.withdrawal_auth_key });
    const confirmUnknown = await call('POST', '/withdrawal', { withdrawal_id: 'wd_00000000000000000000000000000000', withdrawal_auth_key: m.withdrawal_auth_key });
    expect(confirmWrong.status).toBe(401);
    expect(confirmWrong.json).toEqual({ result: '303', status: 'Token invalid: withdrawal_id and withdrawal_auth_key do not match' });
    expect(confirmUnknown.json).toEqual(confirmWrong.json);
    expect((await call('GET', '/withdrawal', { withdrawal_id: quote.json.withdrawal_id })).json.withdrawal_status).toBe('quoted');

    const badAmounts: [unknown, RegExp][] = [['5', /must be a number/], [-5, /not a valid EUR amount/], [1.234, /not a valid EUR amount/], [0, /positive/]];
    for (const [amount, why] of badAmounts) {
      const r = await call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount });
      expect(r.status, String(amount)).toBe(400);
      expect(String(r.json.status)).toMatch(why);
    }
    const tooMuch = await call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount: 1000 });
    expect(String(tooMuch.json.status)).toMatch(/insufficient balance/);
  }, 60_000);

  it('a confirmed withdrawal whose funds are gone before it is sent ends failed with a reason, and the partner hears it', async () => {
    const m = await activeMerchant('gone-1', '0.003');
    const quote = await call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount: 50 });
    expect(quote.json.result).toBe('0');
    await t.ctx.withdrawals.sender.stop();
    try {
      const confirm = await call('POST', '/withdrawal', { withdrawal_id: quote.json.withdrawal_id, withdrawal_auth_key: m.withdrawal_auth_key });
      expect(confirm.json.withdrawal_status).toBe('pending');
      // The operator empties the wallet elsewhere before the withdrawal goes out.
      const wallet = await t.ctx.db.kysely.selectFrom('wallets').select('id').where('api_id', '=', m.merchant_api_id).executeTakeFirstOrThrow();
      await t.ctx.spending.spend({ walletId: wallet.id, outputs: [{ address: settlement, amountSats: 290_000n }], purpose: 'operator' });
      await t.ctx.withdrawals.sender.runOnce();
    } finally {
      t.ctx.withdrawals.sender.start();
    }
    const status = await call('GET', '/withdrawal', { withdrawal_id: quote.json.withdrawal_id });
    expect(status.json).toMatchObject({ result: '0', withdrawal_status: 'failed', tx_id: '' });
    expect(String(status.json.reason)).toMatch(/could not be made: insufficient funds/);
    const events = (await webhookEvents()).filter((e) => e.withdrawal_id === quote.json.withdrawal_id);
    expect(events.map((e) => e.withdrawal_status)).toEqual(['pending', 'failed']);
    expect(String(events[1]!.reason)).toMatch(/insufficient funds/);
  }, 60_000);

  it('the operator rejects with a reason by the CLI; the partner hears it; a new upload puts the wallet back to pending_kyc', async () => {
    const m = await newMerchant('reject-1');
    expect((await upload(m, 'blurry', dataUrl('image/jpeg', Buffer.from('ffd8ffe000104a464946000101ffd9', 'hex')))).json.result).toBe('0');
    const rejected = await runCli(['kyc', 'reject', m.merchant_api_id, '--reason', 'document unreadable'], cliEnv);
    expect(rejected.code, rejected.stderr).toBe(0);
    const read = () => call('GET', `/partner_merchant_wallet?${new URLSearchParams({ partner_auth_key: partnerKey, merchant_api_id: m.merchant_api_id, merchant_auth_key: m.merchant_auth_key })}`);
    expect((await read()).json.wallet_status).toBe('rejected');
    expect((await upload(m, 'sharp', dataUrl('image/png', PNG))).json.result).toBe('0');
    expect((await read()).json.wallet_status).toBe('pending_kyc');
    const events = (await webhookEvents()).filter((e) => e.merchant_api_id === m.merchant_api_id && e.event === 'partner_merchant_wallet');
    expect(events.map((e) => [e.wallet_status, e.reason ?? null])).toEqual([['rejected', 'document unreadable'], ['pending_kyc', null]]);
  }, 60_000);

  it('partner create checks the settlement address network and the webhook URL; list never shows keys; revoke stops the key', async () => {
    const wrongNet = await runCli(['partner', 'create', '--name', 'X', '--test', '--settlement-address', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'], cliEnv);
    expect(wrongNet.code).toBe(2);
    expect(wrongNet.stderr).toMatch(/not a valid regtest address: the address is for mainnet/);
    const metadata = await runCli(['partner', 'create', '--name', 'X', '--test', '--settlement-address', settlement, '--webhook-url', 'http://169.254.169.254/latest'], cliEnv);
    expect(metadata.code).toBe(2);
    expect(metadata.stderr).toMatch(/--webhook-url is not allowed: .*metadata/);
    const made = await runCli(['partner', 'create', '--name', 'Short-lived', '--test', '--settlement-address', settlement, '--json'], cliEnv);
    const { id, partner_auth_key: key } = JSON.parse(made.stdout) as { id: number; partner_auth_key: string };
    const listed = await runCli(['partner', 'list', '--json'], cliEnv);
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).toContain(partnerKey.slice(0, 13));
    expect((await runCli(['partner', 'revoke', String(id)], cliEnv)).code).toBe(0);
    const refused = await call('POST', '/partner_merchant_wallet', { partner_auth_key: key, merchant_name: 'n', partner_merchant_id: 'p', contact: { email: 'a@b.example', phone: '+4930123456' }, bank_info: {} });
    expect(refused.json).toMatchObject({ result: '303' });
  }, 60_000);

  it('a dump of the database shows no document, contact or bank data in clear', async () => {
    const dump: string[] = [];
    for (const table of ['partners', 'partner_wallets', 'kyc_documents', 'wallets', 'withdrawals', 'partner_wallet_transitions', 'withdrawal_transitions', 'outbox'] as const) {
      const rows = await t.ctx.db.kysely.selectFrom(table).selectAll().execute();
      dump.push(JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
    }
    const text = dump.join('\n');
    expect(text).toContain('walk-1');
    for (const secret of ['owner@walk-1.example', '+33142685300', 'FR7630006000011234567890189', 'AGRIFRPP', PNG.toString('base64'), PDF.toString('base64'), 'Catalog', partnerKey, webhookSecret]) {
      expect(text).not.toContain(secret);
    }
  });
});
