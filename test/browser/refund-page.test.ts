// The refund page end to end: a service-held wallet receives two regtest payments, the merchant asks for a
// partial refund of one, the payer opens /refund/:token in Chromium on a phone-sized screen, enters an
// address (first a wrong-network one, refused), and the refund is broadcast and confirmed on the node.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { startRegtestNode, type RegtestNode } from '../support/regtest-node.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { freePort } from '../support/server-process.ts';
import { inMempool, payWallet, sessionOwning } from '../support/refund-fixtures.ts';
import { addressForPublicKey } from '../../src/bitcoin/address.ts';
import { PAGE_CSP } from '../../src/pages/page-headers.ts';
import { fitsWidth, launchChromium, RESULTS_DIR, watchPage } from './chromium.ts';

const SITE_NAME = '<img src=x onerror=alert(1)>';
let node: RegtestNode;
let t: TestApp;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  node = await startRegtestNode();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp('sqlite', {
    env: { SATGATE_PUBLIC_URL: origin, SATGATE_FALLBACK_FEE_RATE: '4' },
    chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await node?.stop();
});

describe('the refund page', () => {
  it('takes the payer’s address on a phone, refuses a mainnet one, and the refund is sent and confirmed', async () => {
    const added = await (await fetch(`${origin}/add_pub`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pub: 'new_wallet', currency: 'testBTC', account_name: SITE_NAME }) })).json() as Record<string, any>;
    const wallet = (await t.ctx.wallets.repo.findByApiId(added.api_id))!;
    const token = await sessionOwning(t.ctx, 'page@example.test', [wallet.id]);
    await t.ctx.chains.pollNow();
    const first = await payWallet(t.ctx, node, wallet, [250_000n]);
    await payWallet(t.ctx, node, wallet, [120_000n]);
    const requested = await (await fetch(`${origin}/refund_request`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ auth_token: token, tx_id: first.txid, refund_amount: '0.0008' }) })).json() as Record<string, any>;
    const url = requested.refund.refund_form_url as string;
    expect(url.startsWith(`${origin}/refund/`)).toBe(true);

    const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const page = await phone.newPage();
    const watch = await watchPage(page);
    const response = await page.goto(url);
    expect(response!.headers()['content-security-policy']).toBe(PAGE_CSP);
    expect(await page.textContent('#refund-amount')).toBe('0.0008');
    expect(await page.textContent('.eyebrow')).toBe(`Refund from ${SITE_NAME}`);
    expect(await fitsWidth(page)).toBe(true);
    expect(await page.isVisible('label[for="refund-addr"]')).toBe(true);
    await page.screenshot({ path: join(RESULTS_DIR, 'refund-page-phone.png'), fullPage: true });

    await page.fill('#refund-addr', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    await page.click('#refund-submit');
    await page.waitForSelector('#form-error:not(:empty)');
    expect(await page.textContent('#form-error')).toBe('This address belongs to another bitcoin network. Use an address that begins with bcrt1…, m…, n… or 2….');

    const to = addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');
    await page.fill('#refund-addr', to);
    await page.click('#refund-submit');
    await page.waitForSelector('#refund-result:not([hidden])');
    expect(await page.textContent('#refund-address')).toBe(to);
    expect(await page.textContent('#status-headline')).toBe('Refund sent');
    const txid = (await page.textContent('#refund-txid'))!;
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    await page.screenshot({ path: join(RESULTS_DIR, 'refund-page-sent.png'), fullPage: true });
    expect(await inMempool(node, txid)).toBe(true);

    await t.ctx.chains.pollNow();
    await node.mine(1);
    await t.ctx.chains.pollNow();
    await t.ctx.spending.reconcile();
    await page.reload();
    expect(await page.textContent('#status-headline')).toBe('Refund sent and confirmed');
    expect(await page.isHidden('#refund-form')).toBe(true);

    // The chain, the refund list and the spend agree; the fee is the fallback rate (bcoin regtest has no estimate) × vsize.
    const spend = (await t.ctx.spending.list(wallet.id)).find((s) => s.txid === txid)!;
    expect(spend.fee_sats).toBe(4n * spend.vsize);
    const tx = Transaction.fromRaw((await node.rpc.getRawTransaction(txid))!);
    expect(tx.getOutput(0).amount).toBe(80_000n);
    const list = (await (await fetch(`${origin}/refunds`, { headers: { authorization: token } })).json()) as Record<string, any>;
    expect(list.refunds[0]).toMatchObject({ tx_id: txid, confirmations: 1, state: 'confirmed' });
    expect(watch.dialogs).toEqual([]);
    // The one console error is Chromium reporting the 400 answer to the refused mainnet address.
    expect(watch.errors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    expect(await watch.cspViolations()).toEqual([]);
    await phone.close();
  });

  it('answers 404 with a page for an unknown token', async () => {
    const res = await fetch(`${origin}/refund/${'A'.repeat(32)}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('Refund not found');
  });
});
