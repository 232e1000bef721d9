// The point of sale counter page in Chromium on the real service and a regtest node, at a 768 px tablet and a 360 px
// phone, driven by visible labels: the cashier adds two items and the payer picks a 10 % tip, Charge shows the
// checkout, the payer pays on regtest and the checkout turns to the receipt without a reload (items, tip, amounts,
// txid; printable); a keypad-only counter charges a typed amount and its checkout recovers from a network drop.
// axe-core finds nothing on any screen; no CSP violation, no console error. Screenshots go to test-results/.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startRegtestNode, type RegtestNode } from '../support/regtest-node.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { freePort } from '../support/server-process.ts';
import { writeRatesFile } from '../support/rates-file.ts';
import { addSandboxWallet } from '../support/payment-api.ts';
import { decodeAddress } from '../../src/bitcoin/address.ts';
import { sessionOwning } from '../support/refund-fixtures.ts';
import { SESSION_COOKIE } from '../../src/console/console-security.ts';
import { satsFromBtc } from '../../src/money/money.ts';
import { fitsWidth, launchChromium, markDocument, RESULTS_DIR, stillMarked, watchPage, type PageWatch } from './chromium.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SIZES = { tablet: { width: 768, height: 1024 }, phone: { width: 360, height: 740 }, desktop: { width: 1280, height: 900 } } as const;

let node: RegtestNode;
let t: TestApp;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  node = await startRegtestNode();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp('sqlite', {
    env: { SATGATE_PUBLIC_URL: origin, SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }) },
    chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
    start: true,
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await node?.stop();
});

/** Every axe-core violation on the page, whatever its impact. */
async function axeViolations(page: Page, screen: string): Promise<unknown[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<{ id: string; impact: string; nodes: number }[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, html: v.nodes.slice(0, 2).map((n) => n.html) })))",
  );
  if (violations.length > 0) console.log(`axe on ${screen}: ${JSON.stringify(violations)}`);
  return violations;
}

let lastApiId = '';

async function newApp(keypad: boolean): Promise<string> {
  const apiId = await addSandboxWallet(t.app);
  lastApiId = apiId;
  const wallet = (await t.ctx.wallets.repo.findByApiId(apiId))!;
  const view = await t.ctx.pos.apps.create(wallet, {
    appName: null,
    title: keypad ? 'Market stall' : 'Café Lisboa',
    description: keypad ? null : 'Coffee and pastries',
    currency: 'USD',
    keypadOnly: keypad,
    customAmount: false,
    tipPresets: keypad ? [] : [5, 10, 15],
    customTip: !keypad,
    defaultLanguage: 'en',
    items: keypad ? [] : [{ name: 'Coffee', price: '3.40', stock: '20' }, { name: 'Pastel de nata', price: '1.60', description: 'Warm, with cinnamon' }, { name: 'Juice', price: '4', stock: '0' }],
  });
  return view.app.public_id;
}

async function open(size: keyof typeof SIZES, publicId: string): Promise<{ page: Page; watch: PageWatch; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport: SIZES[size], hasTouch: size === 'phone' });
  const page = await context.newPage();
  const watch = await watchPage(page);
  const res = await page.goto(`${origin}/pos/${publicId}`);
  expect(res?.status()).toBe(200);
  return { page, watch, close: () => context.close() };
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(RESULTS_DIR, `pos-${name}.png`), fullPage: true });

/** Pays what the checkout shows to the address it shows, and lets the service see it. */
async function payShown(page: Page): Promise<string> {
  const address = (await page.locator('#co-address').textContent())!.trim();
  const btc = (await page.locator('#co-btc').textContent())!.trim();
  const { txid } = await node.pay(decodeAddress(address).script, satsFromBtc(btc));
  await t.ctx.chains.pollNow();
  return txid;
}

describe('the point of sale counter in Chromium', () => {
  for (const size of Object.keys(SIZES) as (keyof typeof SIZES)[]) {
    it(`at ${SIZES[size].width} px: two items and a 10 % tip are charged, paid on regtest, and the receipt shows items, tip, amounts and txid without a reload`, async () => {
      const { page, watch, close } = await open(size, await newApp(false));
      expect(await fitsWidth(page)).toBe(true);
      await expect.poll(() => page.getByRole('button', { name: /Juice/ }).isDisabled()).toBe(true);
      expect(await axeViolations(page, `sale ${size}`)).toEqual([]);
      await shot(page, `sale-empty-${size}`);

      await page.getByRole('button', { name: /Add Coffee/ }).click();
      await page.getByRole('button', { name: /Add Pastel de nata/ }).click();
      await page.getByRole('radio', { name: '10 %' }).check();
      await expect.poll(() => page.locator('#total').textContent()).toBe('5.50');
      expect(await page.locator('#tip-total').textContent()).toBe('0.50');
      expect(await page.getByRole('list').filter({ hasText: 'Coffee' }).first().isVisible()).toBe(true);
      expect(await axeViolations(page, `cart ${size}`)).toEqual([]);
      await shot(page, `sale-cart-${size}`);

      const mark = await markDocument(page);
      await page.getByRole('button', { name: 'Charge' }).click();
      await page.getByRole('heading', { name: 'Checkout' }).waitFor();
      await expect.poll(() => page.locator('#co-btc').textContent()).toBe('0.00011');
      expect(await page.locator('#co-fiat').textContent()).toBe('5.50');
      expect(await page.getByRole('status').first().textContent()).toContain('Waiting for your payment');
      await expect.poll(() => page.evaluate<number>("document.getElementById('qr-image').naturalWidth")).toBeGreaterThan(0);
      expect(await fitsWidth(page)).toBe(true);
      expect(await axeViolations(page, `checkout ${size}`)).toEqual([]);
      await shot(page, `checkout-${size}`);

      const txid = await payShown(page);
      await page.getByRole('heading', { name: 'Receipt' }).waitFor({ timeout: 20_000 });
      expect(await stillMarked(page, mark)).toBe(true);
      const receipt = page.locator('#receipt');
      const text = (await receipt.textContent())!;
      for (const part of ['Coffee', 'Pastel de nata', '3.40', '1.60', '5.00', '0.50 (10 %)', '5.50', '0.00011', '50000', txid]) expect(text).toContain(part);
      expect(await page.getByRole('cell', { name: 'Coffee' }).isVisible()).toBe(true);
      expect(await axeViolations(page, `receipt ${size}`)).toEqual([]);
      await shot(page, `receipt-${size}`);
      await page.emulateMedia({ media: 'print' });
      expect(await page.getByRole('button', { name: 'Print' }).isVisible()).toBe(false);
      expect(await page.locator('#rc-txid').isVisible()).toBe(true);
      await shot(page, `receipt-print-${size}`);
      await page.emulateMedia({ media: 'screen' });

      // The payer asks for the receipt by e-mail: queued in the outbox.
      await page.getByLabel('Your e-mail address').fill(`payer-${size}@example.com`);
      await page.getByRole('button', { name: 'E-mail me a receipt' }).click();
      await expect.poll(() => page.locator('#mail-status').textContent()).toBe('The receipt is on its way.');
      const mails = await t.ctx.db.kysely.selectFrom('outbox').select('id').where('target', '=', `payer-${size}@example.com`).execute();
      expect(mails).toHaveLength(1);

      // Stock: one coffee less, once paid.
      await page.getByRole('button', { name: 'New sale' }).last().click();
      await page.getByRole('button', { name: 'Charge' }).waitFor();
      expect(await watch.cspViolations()).toEqual([]);
      expect(watch.errors).toEqual([]);
      await close();
    });
  }

  it('a keypad-only counter charges a typed amount, and its checkout recovers from a network drop', async () => {
    const { page, watch, close } = await open('phone', await newApp(true));
    expect(await axeViolations(page, 'keypad')).toEqual([]);
    for (const key of ['1', '2', '.', '5']) await page.getByRole('button', { name: key, exact: true }).click();
    await expect.poll(() => page.getByLabel(/Amount typed/).inputValue()).toBe('12.5');
    expect(await page.locator('#total').textContent()).toBe('12.50');
    await shot(page, 'keypad-phone');
    await page.getByRole('button', { name: 'Charge' }).click();
    await page.getByRole('heading', { name: 'Checkout' }).waitFor();
    await expect.poll(() => page.locator('#co-btc').textContent()).toBe('0.00025');

    // The counter's network drops: the page says so and keeps trying; back online it recovers by itself.
    await page.context().setOffline(true);
    await page.getByText('Cannot reach the server right now; retrying…').last().waitFor({ timeout: 15_000 });
    await shot(page, 'checkout-offline-phone');
    await page.context().setOffline(false);
    await expect.poll(() => page.locator('#co-offline').isHidden(), { timeout: 15_000 }).toBe(true);

    const txid = await payShown(page);
    await page.getByRole('heading', { name: 'Receipt' }).waitFor({ timeout: 35_000 });
    expect(await page.locator('#rc-txid').textContent()).toBe(txid);
    expect(await page.locator('#rc-total').textContent()).toBe('12.50');
    expect(await axeViolations(page, 'keypad receipt')).toEqual([]);
    await shot(page, 'keypad-receipt-phone');
    expect(await watch.cspViolations()).toEqual([]);
    // The failed polls while offline are the only console errors.
    expect(watch.errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(e))).toEqual([]);
    await close();
  });
  it("the console's Point of sale page, with an app listed, is axe-clean and fits at 768, 360 and 1280 px", async () => {
    await newApp(false);
    const wallet = (await t.ctx.wallets.repo.findByApiId(lastApiId))!;
    const token = await sessionOwning(t.ctx, 'counter@example.com', [wallet.id]);
    for (const size of Object.keys(SIZES) as (keyof typeof SIZES)[]) {
      const context = await browser.newContext({ viewport: SIZES[size] });
      await context.addCookies([{ name: SESSION_COOKIE, value: token, url: `${origin}/console/` }]);
      const page = await context.newPage();
      const res = await page.goto(`${origin}/console/pos`);
      expect(res?.status()).toBe(200);
      await page.getByRole('heading', { name: 'New point of sale' }).waitFor();
      expect(await page.getByRole('link', { name: /\/pos\/pos_/ }).count()).toBe(1);
      expect(await fitsWidth(page)).toBe(true);
      expect(await axeViolations(page, `console ${size}`)).toEqual([]);
      await shot(page, `console-${size}`);
      await context.close();
    }
  });
});

