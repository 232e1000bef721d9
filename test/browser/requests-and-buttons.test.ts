// Payment requests and pay buttons in Chromium (issue 36), on the real service and a regtest node, on a 360 px phone
// and a 768 px tablet: the request page read and paid in part by its visible labels, the paid part shown on the way
// back; a pay button pasted into a page of another origin opens the checkout, which turns paid without a reload.
// No sideways scrolling, axe-core clean, no CSP violation or script error on any screen. Screenshots go to test-results/.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegtestNode, type RegtestNode } from '../support/regtest-node.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { freePort } from '../support/server-process.ts';
import { writeRatesFile } from '../support/rates-file.ts';
import { addSandboxWallet } from '../support/payment-api.ts';
import { gf, greenfieldKey } from '../support/greenfield.ts';
import { sessionOwning } from '../support/refund-fixtures.ts';
import { decodeAddress } from '../../src/bitcoin/address.ts';
import { POLICIES } from '../../src/greenfield/permissions.ts';
import { SESSION_COOKIE } from '../../src/console/console-security.ts';
import { axeViolations, fitsWidth, launchChromium, markDocument, RESULTS_DIR, stillMarked, watchPage, type PageWatch } from './chromium.ts';

let node: RegtestNode;
let t: TestApp;
let origin: string;
let browser: Browser;
let shop: Server;
let shopOrigin: string;
let apiId: string;
let key: string;
let sessionToken: string;
const shopPages = new Map<string, string>();

beforeAll(async () => {
  node = await startRegtestNode();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp('sqlite', {
    env: { SATGATE_PUBLIC_URL: origin, SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00', EUR: '40000' }) },
    chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
    start: true,
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  await t.ctx.chains.pollNow();
  apiId = await addSandboxWallet(t.app, { local_currency: 'EUR' });
  key = await greenfieldKey(t.ctx, apiId, [POLICIES.modifyPaymentRequests]);
  const wallet = await t.ctx.wallets.repo.findByApiId(apiId);
  sessionToken = await sessionOwning(t.ctx, 'studio@example.org', [wallet!.id]);
  shop = createServer((req, res) => {
    const html = shopPages.get(req.url ?? '');
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'not found');
  });
  await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
  shopOrigin = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await node?.stop();
  await new Promise((r) => shop?.close(r));
});

/** What every screen must be: no sideways scrolling, axe-core clean, no script error or CSP violation. */
async function screenIsSound(page: Page, watch: PageWatch, name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS_DIR, `${name}.png`), fullPage: true });
  expect(await fitsWidth(page), `${name}: sideways scrolling`).toBe(true);
  expect(await axeViolations(page), `${name}: axe-core`).toEqual([]);
  expect(await watch.cspViolations(), `${name}: CSP`).toEqual([]);
  expect(watch.errors, `${name}: script errors`).toEqual([]);
}

/** Pays the checkout page's address on regtest and mines it: the page shows the address as its text. */
async function payCheckout(page: Page): Promise<void> {
  const address = (await page.locator('#crypto-address').textContent())!.trim();
  const btc = (await page.locator('#crypto-amount').textContent())!.trim();
  const [whole, frac = ''] = btc.split('.');
  await node.pay(decodeAddress(address).script, BigInt(whole!) * 100_000_000n + BigInt(frac.padEnd(8, '0')));
  await node.mine(1);
  await t.ctx.chains.pollNow();
}

describe.each([
  ['phone', 360, 740],
  ['tablet', 768, 1024],
  ['desktop', 1280, 900],
] as const)('payment requests and pay buttons on a %s (%i px)', (device, width, height) => {
  it('a payer reads a request, pays a part of it by its labels, and sees the part paid on the way back', async () => {
    const created = await gf(t.app, key, 'POST', `/api/v1/stores/${apiId}/payment-requests`, {
      amount: '100',
      currency: 'EUR',
      title: `Studio rent, ${device}`,
      description: 'Two desks, one month',
      allowCustomPaymentAmounts: true,
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = (created.json() as { id: string }).id;
    const page = await browser.newPage({ viewport: { width, height }, locale: 'en-GB' });
    const watch = await watchPage(page);
    await page.goto(`${origin}/request/${id}`);
    await expect(page.getByRole('heading', { name: `Studio rent, ${device}` }).isVisible()).resolves.toBe(true);
    expect(await page.locator('#request-due').textContent()).toContain('100.00');
    await screenIsSound(page, watch, `request-${device}-open`);

    await page.getByLabel('Amount (EUR)').fill('40');
    await Promise.all([page.waitForURL(/\/pay\/pay_[a-z2-7]{24}$/), page.getByRole('button', { name: 'Pay part of it' }).click()]);
    await page.locator('#crypto-address').waitFor();
    await screenIsSound(page, watch, `request-${device}-checkout`);
    const mark = await markDocument(page);
    await payCheckout(page);
    await expect.poll(() => page.locator('#payment').getAttribute('data-status'), { timeout: 30_000 }).toMatch(/^(unconfirmed|confirmed)$/);
    expect(await page.locator('#status-headline').textContent()).toMatch(/^Paid/);
    expect(await stillMarked(page, mark), 'the checkout turned paid without a reload').toBe(true);

    await page.goto(`${origin}/request/${id}`);
    expect(await page.locator('#request-due').textContent()).toContain('60.00');
    expect(await page.locator('#parts').textContent()).toContain('40.00 EUR');
    await screenIsSound(page, watch, `request-${device}-part-paid`);
    await page.close();
  });

  it("a pay button on another origin's page opens a checkout that turns paid without a reload", async () => {
    const form = new URLSearchParams({ api_id: apiId, label: `Tip the studio ${device}`, currency: 'EUR', kind: 'fixed', amount: '5.00', description: '' });
    const consolePage = await (await fetch(`${origin}/console/buttons`, { headers: { cookie: `${SESSION_COOKIE}=${sessionToken}` } })).text();
    form.set('csrf', /name="csrf" value="([^"]+)"/.exec(consolePage)![1]!);
    const defined = await fetch(`${origin}/console/buttons`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `${SESSION_COOKIE}=${sessionToken}`, origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(defined.status).toBe(303);
    const listing = await (await fetch(`${origin}/console/buttons`, { headers: { cookie: `${SESSION_COOKIE}=${sessionToken}` } })).text();
    // The button's snippet is the textarea that names its label.
    const buttonId = new RegExp(`id="snippet-(btn_[a-z2-7]{24})"[^>]*>[^<]*Tip the studio ${device}`).exec(listing)![1]!;
    shopPages.set(`/${device}.html`, `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><link rel="icon" href="data:,"><title>The studio</title></head><body><main><h1>The studio</h1><form method="post" action="${origin}/button/${buttonId}"><button type="submit">Tip the studio</button></form></main></body></html>`);

    const page = await browser.newPage({ viewport: { width, height }, locale: 'en-GB' });
    const watch = await watchPage(page);
    await page.goto(`${shopOrigin}/${device}.html`);
    await Promise.all([page.waitForURL(new RegExp(`^${origin}/pay/pay_[a-z2-7]{24}$`)), page.getByRole('button', { name: 'Tip the studio' }).click()]);
    await page.locator('#crypto-address').waitFor();
    await screenIsSound(page, watch, `button-${device}-checkout`);
    const mark = await markDocument(page);
    await payCheckout(page);
    await expect.poll(() => page.locator('#payment').getAttribute('data-status'), { timeout: 30_000 }).toMatch(/^(unconfirmed|confirmed)$/);
    expect(await page.locator('#status-headline').textContent()).toMatch(/^Paid/);
    expect(await stillMarked(page, mark)).toBe(true);
    await screenIsSound(page, watch, `button-${device}-paid`);
    await page.close();
  });
});
