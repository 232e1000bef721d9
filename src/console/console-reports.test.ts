// The console's Reports page and the dashboard API's reports on a bcoin regtest chain, both engines: a signed-in owner
// sees a small workload's figures (fiat at the rate of the moment, BTC) as charts with a table, another merchant's
// wallet is refused, bad days give a clear page error, and the console's and the API's downloads are byte for byte
// the CLI's export.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { sessionOwning } from '../../test/support/refund-fixtures.ts';
import { runCli } from '../../test/support/server-process.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { SESSION_COOKIE } from './console-security.ts';

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe.each(testEngines())('the console Reports page on %s', (engine) => {
  let node: RegtestNode;
  let t: TestApp;
  let apiId: string;
  let owner: string;
  let stranger: string;
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'satgate-conrep-'));
  const today = day(Date.now());
  const from = day(Date.now() - DAY_MS);
  const toExcluded = day(Date.now() + DAY_MS);
  const paid: { sats: bigint; fiat: string }[] = [];

  const get = (url: string, token: string) => t.app.inject({ method: 'GET', url, headers: { cookie: `${SESSION_COOKIE}=${token}` } });
  const api = (url: string, token: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    node = await startRegtestNode();
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_POLL_MS: '600000', SATGATE_FALLBACK_FEE_RATE: '3' },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'usd' } });
    apiId = added.json().api_id;
    const walletId = (await t.ctx.wallets.repo.findByApiId(apiId))!.id;
    const token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
    env = { ...t.testDb.env, SATGATE_TEST_RPC_URL: node.rpcUrl, SATGATE_TEST_NETWORK: 'regtest' };
    await t.ctx.chains.pollNow();
    // Two payments seen at two different rates of the moment.
    for (const usd of ['50000', '60000.5']) {
      const now = BigInt(Date.now());
      await t.ctx.db.kysely.insertInto('rate_records').values({ rate_at: now, fetched_at: now, origin: 'refresh', rates_json: JSON.stringify({ USD: usd }), sources_json: JSON.stringify({ answered: ['test'], failed: [], derived: [] }) }).execute();
      const res = await postPayment(t.app, token, customRequest(apiId));
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { payment_reference: string; crypto_address: string };
      const row = await t.ctx.db.kysely.selectFrom('payments').select('crypto_sats').where('reference', '=', body.payment_reference).executeTakeFirstOrThrow();
      await node.pay(decodeAddress(body.crypto_address).script, row.crypto_sats);
      await t.ctx.chains.pollNow();
      paid.push({ sats: row.crypto_sats, fiat: usd });
    }
    await node.mine(1);
    await t.ctx.chains.pollNow();
    owner = await sessionOwning(t.ctx, 'owner@shop.example', [walletId]);
    stranger = await sessionOwning(t.ctx, 'other@shop.example', []);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await node?.stop();
  });

  it("shows the owner the period's figures as two charts with a table of the same numbers", async () => {
    const res = await get(`/console/reports?api_id=${apiId}&from=${from}&to=${today}&kind=all&group=day`, owner);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain('<a href="/console/reports" aria-current="page">Reports</a>');
    const summary = await api(`/dashboard/wallets/${apiId}/reports/summary?from=${from}&to=${toExcluded}&period=day`, owner);
    expect(summary.statusCode, summary.body).toBe(200);
    const days = summary.json().summaries as { period: string; count: string; btc_in: string; fiat_in: string }[];
    expect(days).toHaveLength(1);
    const sats = paid.reduce((s, p) => s + p.sats, 0n);
    expect(days[0]).toMatchObject({ period: today, count: '2', btc_in: `0.${String(sats).padStart(8, '0')}` });
    // The page's table and charts carry the ledger summary's own figures.
    expect(res.body).toContain(`<td class="num" data-label="Received (testBTC)">${days[0]!.btc_in}</td>`);
    expect(res.body).toContain(`<td class="num" data-label="Received (USD)">${days[0]!.fiat_in}</td>`);
    expect(res.body).toContain(`<title>${today}: ${days[0]!.fiat_in} USD</title>`);
    expect(res.body).toMatch(/<svg id="report-fiat-chart"[^>]*role="img" aria-labelledby="report-fiat-title report-fiat-desc"/);
    expect(res.body).toMatch(/<svg id="report-btc-chart"[^>]*role="img"/);
    // Yesterday had nothing: a zero bar, no table row.
    expect(res.body).toContain(`<title>${from}: 0.00 USD</title>`);
    expect(res.body).not.toContain(`<td data-label="Day">${from}</td>`);
    expect(res.body).not.toMatch(/\sstyle=|<script(?! src)|\son[a-z]+=/);
    const monthly = await get(`/console/reports?api_id=${apiId}&from=${from}&to=${today}&kind=receipt&group=month`, owner);
    expect(monthly.statusCode).toBe(200);
    expect(monthly.body).toContain(`<td data-label="Month">${today.slice(0, 7)}</td>`);
  });

  it("refuses another merchant's wallet in the page, the download and the API", async () => {
    expect((await get(`/console/reports?api_id=${apiId}&from=${from}&to=${today}`, stranger)).statusCode).toBe(404);
    expect((await get(`/console/reports/ledger?api_id=${apiId}&from=${from}&to=${today}&format=csv`, stranger)).statusCode).toBe(404);
    const res = await api(`/dashboard/wallets/${apiId}/reports/ledger?from=${from}&to=${toExcluded}`, stranger);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ return: '999' });
    // The stranger's own page offers no wallet of someone else.
    expect((await get('/console/reports', stranger)).body).not.toContain(apiId);
  });

  it('answers bad days with a clear page error and bad API queries with the envelope, never a 500', async () => {
    const rolled = await get(`/console/reports?api_id=${apiId}&from=2026-02-31&to=${today}`, owner);
    expect(rolled.statusCode).toBe(400);
    expect(rolled.body).toContain('From (2026-02-31) is not a day of the calendar.');
    expect(rolled.body).toContain('role="alert"');
    const backwards = await get(`/console/reports?api_id=${apiId}&from=${today}&to=${from}`, owner);
    expect(backwards.statusCode).toBe(400);
    expect(backwards.body).toContain('The period ends before it starts');
    expect((await get(`/console/reports?api_id=${apiId}&from=yesterday&to=${today}`, owner)).body).toContain('From must be a day written as YYYY-MM-DD');
    expect((await get(`/console/reports?api_id=${apiId}&from=2020-01-01&to=${today}&group=day`, owner)).body).toContain('choose Per month');
    expect((await get(`/console/reports/ledger?api_id=${apiId}&from=${from}&to=${today}&format=xls`, owner)).statusCode).toBe(400);
    for (const q of ['', `from=${from}`, `from=${from}&to=${toExcluded}&format=xml`, `from=${from}&to=${toExcluded}&kind=gift`, `from=2026-13-01&to=${toExcluded}`, `from=${toExcluded}&to=${from}`, `from=${from}&to=${toExcluded}&extra=1`]) {
      const res = await api(`/dashboard/wallets/${apiId}/reports/ledger?${q}`, owner);
      expect(res.statusCode, q).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, q).toBeLessThan(500);
      expect(res.json(), q).toHaveProperty('return');
    }
    const summary = await api(`/dashboard/wallets/${apiId}/reports/summary?from=${from}&to=${toExcluded}&period=week`, owner);
    expect(summary.statusCode).toBe(400);
  });

  it("downloads exactly the CLI's export, as CSV and JSON Lines, from the console and the API", async () => {
    for (const format of ['csv', 'jsonl'] as const) {
      const file = join(dir, `cli-${engine}.${format}`);
      const cli = await runCli(['report', 'ledger', '--wallet', apiId, '--from', from, '--to', toExcluded, '--format', format, '--out', file], env);
      expect(cli.code, cli.stderr).toBe(0);
      const expected = readFileSync(file, 'utf8');
      expect(expected.split(/\r?\n/).filter(Boolean)).toHaveLength(format === 'csv' ? 3 : 2);
      const consoleDl = await get(`/console/reports/ledger?api_id=${apiId}&from=${from}&to=${today}&kind=all&group=day&format=${format}`, owner);
      expect(consoleDl.statusCode).toBe(200);
      expect(consoleDl.headers['content-disposition']).toBe(`attachment; filename="ledger-${apiId}-${from}-${today}.${format}"`);
      expect(consoleDl.body).toBe(expected);
      const apiDl = await api(`/dashboard/wallets/${apiId}/reports/ledger?from=${from}&to=${toExcluded}&format=${format}`, owner);
      expect(apiDl.statusCode).toBe(200);
      expect(apiDl.headers['content-type']).toContain(format === 'csv' ? 'text/csv' : 'application/jsonl');
      expect(apiDl.body).toBe(expected);
    }
    // A kind filter keeps only that kind's rows; there was no refund.
    const refunds = await api(`/dashboard/wallets/${apiId}/reports/ledger?from=${from}&to=${toExcluded}&kind=refund&format=jsonl`, owner);
    expect(refunds.body).toBe('');
    // The summary as CSV is the CLI's summary.
    const file = join(dir, `cli-summary-${engine}.csv`);
    const cli = await runCli(['report', 'summary', '--wallet', apiId, '--from', from, '--to', toExcluded, '--period', 'month', '--out', file], env);
    expect(cli.code, cli.stderr).toBe(0);
    expect((await api(`/dashboard/wallets/${apiId}/reports/summary?from=${from}&to=${toExcluded}&period=month&format=csv`, owner)).body).toBe(readFileSync(file, 'utf8'));
  });
});
