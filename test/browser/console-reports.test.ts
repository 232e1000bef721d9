// The console's Reports page in Chromium on the real service with a bcoin regtest node: at 360 px and 1280 px it needs
// no sideways scrolling, axe-core finds no serious violation, each chart is an image with a name and description and
// its figures are in a table, and the CSV download (under the session cookie) holds the payment's ledger row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startRegtestNode, type RegtestNode } from '../support/regtest-node.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { freePort } from '../support/server-process.ts';
import { writeRatesFile } from '../support/rates-file.ts';
import { createClient, customRequest, postPayment, tokenFor } from '../support/payment-api.ts';
import { sessionOwning } from '../support/refund-fixtures.ts';
import { decodeAddress } from '../../src/bitcoin/address.ts';
import { SESSION_COOKIE } from '../../src/console/console-security.ts';
import { fitsWidth, launchChromium, RESULTS_DIR, watchPage } from './chromium.ts';

const SHOTS = join(RESULTS_DIR, 'console');
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SIZES = { phone: { width: 360, height: 740 }, desktop: { width: 1280, height: 900 } };

let node: RegtestNode;
let t: TestApp;
let origin: string;
let browser: Browser;
let apiId: string;
let session: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  node = await startRegtestNode();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp('sqlite', {
    env: { SATGATE_PUBLIC_URL: origin, SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_POLL_MS: '600000', SATGATE_FALLBACK_FEE_RATE: '3' },
    chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
    start: true,
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', local_currency: 'usd', account_name: 'Corner shop' } });
  apiId = added.json().api_id;
  const token = await tokenFor(t.app, await createClient(t.ctx, [apiId]));
  await t.ctx.chains.pollNow();
  const res = await postPayment(t.app, token, customRequest(apiId));
  const body = res.json() as { payment_reference: string; crypto_address: string };
  const row = await t.ctx.db.kysely.selectFrom('payments').select('crypto_sats').where('reference', '=', body.payment_reference).executeTakeFirstOrThrow();
  await node.pay(decodeAddress(body.crypto_address).script, row.crypto_sats);
  await node.mine(1);
  await t.ctx.chains.pollNow();
  session = await sessionOwning(t.ctx, 'reports@shop.example', [(await t.ctx.wallets.repo.findByApiId(apiId))!.id]);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await node?.stop();
});

async function axeSerious(page: Page): Promise<unknown[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<{ id: string; impact: string; nodes: number }[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))",
  );
  if (violations.length > 0) console.log(`axe on reports: ${JSON.stringify(violations)}`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('the console Reports page in Chromium', () => {
  for (const [name, viewport] of Object.entries(SIZES)) {
    it(`at ${viewport.width} px fits the screen, is axe-clean, and gives each chart a text equivalent`, async () => {
      const context = await browser.newContext({ viewport });
      await context.addCookies([{ name: SESSION_COOKIE, value: session, url: `${origin}/console/` }]);
      const page = await context.newPage();
      const watch = await watchPage(page);
      await page.goto(`${origin}/console/reports`);
      expect(new URL(page.url()).pathname).toBe('/console/reports');
      // The form works without script: choosing a month grouping is a plain GET.
      await page.getByLabel('Per', { exact: true }).selectOption('month');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/group=month/);
      expect(await fitsWidth(page)).toBe(true);
      expect(await axeSerious(page)).toEqual([]);
      for (const id of ['report-fiat-chart', 'report-btc-chart']) {
        const svg = page.locator(`#${id}`);
        expect(await svg.getAttribute('role')).toBe('img');
        const [titleId, descId] = (await svg.getAttribute('aria-labelledby'))!.split(' ');
        expect((await page.locator(`#${titleId}`).textContent())!.length).toBeGreaterThan(10);
        expect(await page.locator(`#${descId}`).textContent()).toContain('the highest was');
        expect(await page.locator(`#${id} rect.bar:not([height="0"])`).count()).toBe(1);
      }
      // The table holds the bars' numbers: the month's USD at the rate of the moment, and the BTC.
      const month = new Date().toISOString().slice(0, 7);
      const cells = await page.locator('table.cards tbody tr').first().locator('td').allInnerTexts();
      expect(cells[0]).toContain(month);
      const fiat = cells[3]!.replace(/^.*:\s*/, '');
      expect(await page.locator('#report-fiat-chart rect.bar:not([height="0"]) title').textContent()).toBe(`${month}: ${fiat} USD`);
      await page.screenshot({ path: join(SHOTS, `reports-${name}.png`), fullPage: true });
      // The download goes through the console's route under the session cookie.
      const href = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
      const csv = await context.request.get(`${origin}${href}`);
      expect(csv.status()).toBe(200);
      expect(csv.headers()['content-disposition']).toMatch(/^attachment; filename="ledger-/);
      expect((await csv.text()).split('\r\n').filter(Boolean)).toHaveLength(2);
      expect(watch.errors).toEqual([]);
      expect(await watch.cspViolations()).toEqual([]);
      await context.close();
    });
  }
});
