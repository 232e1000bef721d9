// The ledger of a partner merchant's wallet on a bcoin regtest chain: a payment received, then a withdrawal to the
// settlement address. The withdrawal is one row with what reached the payee (negative) and the network fee apart
// (negative), read back by Python's csv module, and `satgate report check` agrees with the chain. The ledger is kept
// in step by the chain change listener: the rows are there before any report runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { pythonCsvFile, skipWithoutPython } from '../../test/support/python-csv.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { runCli } from '../../test/support/server-process.ts';
import { httpJson } from '../../test/support/http-json.ts';
import { addressForPublicKey, decodeAddressFor } from '../bitcoin/address.ts';
import { fiatToSats, satsFromBtc } from '../money/money.ts';



/** Satoshis as a signed BTC decimal with 8 places, in integers. */
const btc8 = (sats: bigint) => {
  const a = sats < 0n ? -sats : sats;
  return `${sats < 0n ? '-' : ''}${a / 100_000_000n}.${(a % 100_000_000n).toString().padStart(8, '0')}`;
};

const EUR_RATE = '46000.50';

describe.skipIf(skipWithoutPython('the withdrawal ledger test')).each(testEngines())('a withdrawal in the merchant ledger on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;
  let origin: string;
  let cliEnv: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'satgate-report-wd-'));
  const settlement = addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
  const from = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const to = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: EUR_RATE }), SATGATE_POLL_MS: '600000', SATGATE_FALLBACK_FEE_RATE: '3' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await t.ctx.chains.pollNow();
    const keyDir = mkdtempSync(join(tmpdir(), 'satgate-mk-'));
    writeFileSync(join(keyDir, 'master.key'), `${Buffer.alloc(32, 7).toString('hex')}\n`, { mode: 0o600 });
    cliEnv = { ...t.testDb.env, SATGATE_MASTER_KEY_FILE: join(keyDir, 'master.key'), SATGATE_TEST_RPC_URL: node.rpcUrl, SATGATE_TEST_NETWORK: 'regtest' };
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  const call = (method: string, path: string, body?: unknown) => httpJson(method, `${origin}${path}`, body);

  it('records the withdrawal with a negative amount and its fee apart, before any report runs, and the check agrees with the chain', async () => {
    const created = await runCli(['partner', 'create', '--name', 'Market', '--test', '--settlement-address', settlement, '--json'], cliEnv);
    expect(created.code, created.stderr).toBe(0);
    const partnerKey = (JSON.parse(created.stdout) as { partner_auth_key: string }).partner_auth_key;
    const made = await call('POST', '/partner_merchant_wallet', {
      partner_auth_key: partnerKey,
      merchant_name: 'Shop wd',
      partner_merchant_id: 'wd-1',
      contact: { email: 'owner@wd.example', phone: '+33142685300' },
      bank_info: { iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' },
      local_currency: 'EUR',
    });
    expect(made.json.result, JSON.stringify(made.json)).toBe('0');
    const m = made.json as { merchant_api_id: string; merchant_auth_key: string; withdrawal_auth_key: string };
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f7d6a90000000049454e44ae426082', 'hex');
    const kyc = await call('POST', '/partner_merchant_kyc', { partner_auth_key: partnerKey, merchant_api_id: m.merchant_api_id, merchant_auth_key: m.merchant_auth_key, doc_id: 'id-card', description: 'id-card', base64: `data:image/png;base64,${png.toString('base64')}` });
    expect(kyc.json.result, JSON.stringify(kyc.json)).toBe('0');
    await t.ctx.partners.kyc.approve(m.merchant_api_id);
    const walletId = (await t.ctx.wallets.repo.findByApiId(m.merchant_api_id))!.id;

    const addr = await call('POST', '/set_addr', { api_id: m.merchant_api_id });
    const received = satsFromBtc('0.01');
    await node.pay(decodeAddressFor(String(addr.json.addr), 'regtest').script, received);
    await node.mine(1);
    await t.ctx.chains.pollNow();

    const quote = await call('GET', '/withdrawal_quote', { merchant_api_id: m.merchant_api_id, withdrawal_auth_key: m.withdrawal_auth_key, amount: 150.25 });
    expect(quote.status, JSON.stringify(quote.json)).toBe(200);
    const withdrawalId = String(quote.json.withdrawal_id);
    const paid = fiatToSats('150.25', EUR_RATE);
    expect((await call('POST', '/withdrawal', { withdrawal_id: withdrawalId, withdrawal_auth_key: m.withdrawal_auth_key })).json.withdrawal_status).toBe('pending');
    await t.ctx.withdrawals.sender.runOnce();
    const spend = await t.ctx.db.kysely.selectFrom('spends').select(['txid', 'fee_sats']).where('purpose', '=', 'withdrawal').where('reference', '=', withdrawalId).executeTakeFirstOrThrow();
    const txid = spend.txid;
    for (let i = 0; i < 300 && (await node.rpc.getRawTransaction(txid)) === null; i++) await new Promise((r) => setTimeout(r, 10));
    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();

    // Kept in step by the chain change listener: the receipt and the confirmed withdrawal are there already.
    const kept = await t.ctx.db.kysely.selectFrom('ledger_entries').select(['kind', 'amount_sats', 'fee_sats', 'confirmed_height']).where('wallet_id', '=', walletId).orderBy('id').execute();
    expect(kept.map((r) => [r.kind, r.amount_sats, r.fee_sats, r.confirmed_height !== null])).toEqual([
      ['receipt', received, null, true],
      ['withdrawal', -paid, -spend.fee_sats, true],
    ]);

    const file = join(dir, `wd-${engine}.csv`);
    const out = await runCli(['report', 'ledger', '--wallet', m.merchant_api_id, '--from', from, '--to', to, '--format', 'csv', '--out', file], cliEnv);
    expect(out.code, out.stderr).toBe(0);
    const rows = pythonCsvFile(file);
    expect(rows).toHaveLength(2);
    expect(rows.filter((r) => r.kind === 'withdrawal')).toEqual([
      expect.objectContaining({ txid, amount_btc: btc8(-paid), fee_btc: btc8(-spend.fee_sats), address: settlement, reference_kind: 'withdrawal', reference: withdrawalId, status: 'confirmed' }),
    ]);
    expect(spend.fee_sats).toBeGreaterThan(0n);

    const check = await runCli(['report', 'check', '--wallet', m.merchant_api_id, '--from', from, '--to', to], cliEnv);
    expect(check.stdout).toContain(`spent ${btc8(paid + spend.fee_sats)} BTC`);
    expect(check.stdout).toContain('the ledger agrees with the chain');
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }, 240_000);
});
