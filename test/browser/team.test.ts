// A wallet's team in Chromium on the real service and a real SMTP server (issue 40, "Done means"): the owner signs in
// by code and invites a cashier from the wallet's Members page; the cashier receives the mail, opens its link, signs
// in by the code mailed to that address and lands in the console as a member, where the navigation offers only the
// wallet's point of sale and payments; the settings page and a refund are refused, by URL too. At 768 px, with a
// look at 360 px; axe-core finds nothing on any screen, no CSP violation, no console error. Screenshots go to
// test-results/team/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { eventually, freePort } from '../support/server-process.ts';
import { writeRatesFile } from '../support/rates-file.ts';
import { addSandboxWallet } from '../support/payment-api.ts';
import { readMail, startSmtpCapture, takeLoginMail, type SmtpCapture } from '../support/smtp-capture.ts';
import { associateByOperator } from '../../src/dashboard/accounts.ts';
import { axeViolations, fitsWidth, launchChromium, RESULTS_DIR, watchPage } from './chromium.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const TABLET = { width: 768, height: 1024 };
const PHONE = { width: 360, height: 740 };
const SHOTS = join(RESULTS_DIR, 'team');

let t: TestApp;
let smtp: SmtpCapture;
let browser: Browser;
let origin: string;
let apiId: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  smtp = await startSmtpCapture();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp('sqlite', {
    env: { SATGATE_PUBLIC_URL: origin, SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_SMTP_URL: smtp.url },
    chains: DEAD_NODE,
    start: true,
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  apiId = await addSandboxWallet(t.app, { account_name: 'Corner Café', notification_email: 'owner@example.com', local_currency: 'usd' });
  await associateByOperator(t.ctx.db, apiId, 'owner@example.com', Date.now());
  const wallet = (await t.ctx.wallets.repo.findByApiId(apiId))!;
  await t.ctx.pos.apps.create(wallet, {
    appName: null,
    title: 'Café counter',
    description: null,
    currency: 'USD',
    keypadOnly: true,
    customAmount: false,
    tipPresets: [],
    customTip: false,
    defaultLanguage: 'en',
    items: [],
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await smtp?.close();
});

/** axe-core finds nothing; the page fits the width it is shown at; a screenshot. */
async function check(page: Page, name: string): Promise<void> {
  const violations = await axeViolations(page);
  expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
  expect(await fitsWidth(page), `${name} fits`).toBe(true);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** The sign-in by code on the pages, from wherever the console sent the browser to sign in. */
async function signIn(page: Page, email: string): Promise<void> {
  expect(new URL(page.url()).pathname).toBe('/console/login');
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send me a sign-in code' }).click();
  await page.waitForSelector('#otp');
  await page.getByLabel('Sign-in code').fill((await takeLoginMail(smtp, email)).code);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const navLinks = async (page: Page) => (await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).map((l) => l.trim());

describe('a wallet team in Chromium', () => {
  it('an owner invites a cashier by e-mail; the cashier opens the link, signs in by code and sees only the point of sale and payments, refused the settings and refunds by URL too', async () => {
    // The owner invites from the wallet's Members page.
    const ownerContext = await browser.newContext({ viewport: TABLET });
    const owner = await ownerContext.newPage();
    const ownerWatch = await watchPage(owner);
    await owner.goto(`${origin}/console/`);
    await signIn(owner, 'owner@example.com');
    await owner.waitForURL(`${origin}/console/wallets`);
    await owner.getByRole('link', { name: 'Corner Café' }).click();
    await owner.getByRole('link', { name: 'Members and roles' }).click();
    await owner.getByRole('heading', { name: 'Members' }).waitFor();
    await check(owner, 'members-768');
    const inviteForm = owner.getByRole('form', { name: 'Invite by e-mail' });
    await inviteForm.getByLabel('E-mail').fill('cashier@example.com');
    await inviteForm.getByLabel('Role').selectOption('Cashier');
    await inviteForm.getByRole('button', { name: 'Send invitation' }).click();
    await owner.getByText('Invitation sent').waitFor();
    expect(await owner.getByRole('table', { name: 'Pending invitations' }).getByRole('cell', { name: 'cashier@example.com', exact: true }).count()).toBe(1);
    await check(owner, 'invited-768');
    expect(await ownerWatch.cspViolations()).toEqual([]);
    expect(ownerWatch.errors).toEqual([]);

    // The cashier's mail, with the link.
    const raw = await eventually(async () => smtp.mails.find((m) => m.includes('To: cashier@example.com')), 20_000, 'the invitation mail');
    smtp.mails.splice(smtp.mails.indexOf(raw), 1);
    const mail = readMail(raw);
    expect(mail.subject).toBe('Invitation to the wallet "Corner Café" on satgate');
    const link = new RegExp(`${origin.replace(/[.:/]/g, '\\$&')}/console/join/[A-Za-z0-9_-]+`).exec(mail.text)?.[0];
    expect(link, mail.text).toBeDefined();

    // The cashier opens it, continues to the sign-in and signs in with the code mailed to that address.
    const context = await browser.newContext({ viewport: TABLET });
    const page = await context.newPage();
    const watch = await watchPage(page);
    expect((await page.goto(link!))?.status()).toBe(200);
    await page.getByText('with the role Cashier').waitFor();
    await check(page, 'invitation-768');
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.waitForURL(`${origin}/console/login`);
    await signIn(page, 'cashier@example.com');
    await page.waitForURL(`${origin}/console/wallets?ok=joined`);
    await page.getByText('You joined the wallet').waitFor();
    await check(page, 'joined-768');

    // Only the point of sale and payments (and the cashier's own pages) are offered; the wallet's settings are not.
    expect(await navLinks(page)).toEqual(['Wallets', 'Payments', 'Requests', 'Point of sale', 'Profile']);
    expect(await page.getByRole('link', { name: 'Corner Café' }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Point of sale' }).click();
    await page.getByRole('heading', { name: 'Café counter' }).waitFor();
    expect(await page.getByRole('link', { name: /\/pos\/pos_/ }).count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'New point of sale' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Delete/ }).count()).toBe(0);
    await check(page, 'cashier-pos-768');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Payments' }).waitFor();
    await check(page, 'cashier-payments-768');

    // By URL: the settings page is a refusal page, not the form; so is a refund posted from a page of the console.
    const settings = await page.goto(`${origin}/console/wallets/${apiId}`);
    expect(settings?.status()).toBe(403);
    await page.getByRole('heading', { name: 'Refused' }).waitFor();
    expect(await page.locator('input[name="webhook_url"]').count()).toBe(0);
    await check(page, 'cashier-settings-refused-768');
    await page.goto(`${origin}/console/profile`);
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const refund = await page.request.post(`${origin}/console/orders/payment/1/refund`, {
      form: { csrf, tx_id: 'ab'.repeat(32), refund_amount: '0.0001' },
      headers: { origin, 'sec-fetch-site': 'same-origin' },
    });
    expect(refund.status()).toBe(403);
    expect(await refund.text()).toContain('does not allow this (refund)');
    const members = await page.goto(`${origin}/console/wallets/${apiId}/members`);
    expect(members?.status()).toBe(403);

    // At 360 px the same pages fit and stay clean.
    await page.setViewportSize(PHONE);
    await page.goto(`${origin}/console/pos`);
    await check(page, 'cashier-pos-360');
    await page.goto(`${origin}/console/wallets/${apiId}`);
    await check(page, 'cashier-settings-refused-360');
    expect(await watch.cspViolations()).toEqual([]);
    // The refused pages' 403 answers are the only console errors.
    expect(watch.errors.filter((e) => !/status of 403/.test(e))).toEqual([]);
    await context.close();
    await ownerContext.close();
  }, 180_000);
});
