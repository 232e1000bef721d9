// Secrets in URLs never reach the log: refund and form tokens in paths, keys in query strings, on every page and
// API that takes them, on 404s and malformed spellings too. The app is booted for real with its log captured.
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { rawRequest } from '../../test/support/raw-http.ts';
import { insertRefund } from '../refunds/refund-requests.ts';
import { newToken } from '../security/tokens.ts';
import { createLogRedaction } from './log-redaction.ts';
import { Invitations } from '../teams/invitations.ts';
import { sessionOwning } from '../../test/support/refund-fixtures.ts';
import { lastSealedMail } from '../../test/support/dashboard.ts';

/** A test network whose node never answers: wallets and forms work, nothing is watched. */
const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };

function memoryStream(): { stream: Writable; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** Every spelling of a URL that carries `token` where `path` (which contains `TOKEN`) has it. */
function spellings(path: string, token: string): string[] {
  const at = path.replace('TOKEN', token);
  const [first, ...rest] = at.slice(1).split('/');
  const encodedFirst = `/%${first!.charCodeAt(0).toString(16)}${first!.slice(1)}/${rest.join('/')}`;
  return [
    at,
    `${at}?width=300&x=1`,
    `${at}/`,
    `${at}/no-such-page`,
    `/${at}`,
    at.toUpperCase().replace(token.toUpperCase(), token),
    encodedFirst,
    path.replace('TOKEN', `%${token.charCodeAt(0).toString(16)}${token.slice(1)}`),
    path.replace('TOKEN', `${token}%ZZ`),
    path.replace('TOKEN', `${token}${'x'.repeat(600)}`),
  ];
}

describe.each(testEngines())('request log redaction on %s', (engine) => {
  const log = memoryStream();
  let t: TestApp;
  let port: number;
  const created: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), LOG_LEVEL: 'trace' }, logStream: log.stream, chains: DEAD_NODE, start: true });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('no refund, form or point of sale token the test created appears anywhere in the log, whatever page, API or spelling carried it', async () => {
    const apiId = await addSandboxWallet(t.app, { account_name: 'Log Shop' });
    const made = await t.app.inject({
      method: 'POST',
      url: '/payment_form',
      payload: {
        api_id: apiId,
        order_id: 'ORD-LOG',
        order_amount: '25.00',
        order_currency: 'USD',
        user_email: 'payer@example.com',
        payment_cancel_url: 'https://shop.example/cart',
        payment_complete_url: 'https://shop.example/thanks',
        payment_update_url: 'https://shop.example/updates',
        site_name: 'Log Shop',
      },
    });
    const form = made.json() as { return: string; payment_page_url: string; auth_response_token: string };
    expect(form.return, made.body).toBe('0');
    const formToken = form.payment_page_url.split('/form/')[1]!;
    const formRow = await t.ctx.db.kysely.selectFrom('payment_forms').select(['wallet_id', 'address_id']).where('order_id', '=', 'ORD-LOG').executeTakeFirstOrThrow();
    // A refund of a (made-up) payment to the form's address: its link is mailed to the form's payer.
    const refund = await t.ctx.db.kysely.transaction().execute((trx) =>
      insertRefund(trx, { masterKey: t.masterKey, clock: Date.now, publicUrl: t.ctx.config.publicUrl }, {
        walletId: formRow.wallet_id,
        profileId: 0n,
        txid: 'ab'.repeat(32),
        amountSats: 10_000n,
        idempotencyKey: null,
        addressIds: [formRow.address_id],
      }),
    );
    const unknownForm = newToken(24);
    const unknownRefund = newToken(24);
    const keys = { withdrawal: `wak_${newToken(16)}`, merchant: `mak_${newToken(16)}`, partner: `pak_${newToken(16)}`, auth: newToken(24) };
    created.push(formToken, form.auth_response_token, refund.token, unknownForm, unknownRefund, ...Object.values(keys));

    const requests: Array<[string, string]> = [];
    for (const token of [formToken, unknownForm]) {
      for (const path of ['/form/TOKEN', '/form/TOKEN/state', '/form/TOKEN/qrcode', '/payment_form/TOKEN']) {
        for (const url of spellings(path, token)) requests.push(['GET', url], ['HEAD', url]);
      }
      for (const path of ['/form/TOKEN/fields', '/form/TOKEN/refresh']) for (const url of spellings(path, token)) requests.push(['POST', url]);
      requests.push(['POST', `/set_refund_addr?refund_form_token=${token}`]);
    }
    // A point of sale's page id is its only key: its page, charges, status and receipt paths.
    const wallet = (await t.ctx.wallets.repo.findByApiId(apiId))!;
    const pos = await t.ctx.pos.apps.create(wallet, { appName: null, title: 'Log Café', description: null, currency: 'USD', keypadOnly: true, customAmount: false, tipPresets: [], customTip: false, defaultLanguage: null, items: [] });
    created.push(pos.app.public_id);
    for (const path of ['/pos/TOKEN', '/pos/TOKEN/charges/pay_unknown']) for (const url of spellings(path, pos.app.public_id)) requests.push(['GET', url], ['HEAD', url]);
    for (const path of ['/pos/TOKEN/charges', '/pos/TOKEN/charges/pay_unknown/receipt']) for (const url of spellings(path, pos.app.public_id)) requests.push(['POST', url]);
    // An invitation to the wallet's team: its mailed link carries the token in the path.
    await sessionOwning(t.ctx, 'owner-log@example.com', [wallet.id]);
    const owner = await t.ctx.db.kysely.selectFrom('profiles').select(['id', 'email']).where('email', '=', 'owner-log@example.com').executeTakeFirstOrThrow();
    await new Invitations({ db: t.ctx.db, clock: Date.now, masterKey: t.masterKey, publicUrl: t.ctx.config.publicUrl }).invite({ profileId: owner.id, email: owner.email }, apiId, 'invitee-log@example.com', 'Cashier', null);
    const invitation = await lastSealedMail(t.ctx.db, 'invitee-log@example.com');
    const link = /\/console\/join\/([A-Za-z0-9_-]+)/.exec(invitation.text);
    expect(link, invitation.text).not.toBeNull();
    const invitationToken = link![1]!;
    const unknownInvitation = newToken(32);
    created.push(invitationToken, unknownInvitation);
    for (const token of [invitationToken, unknownInvitation]) for (const url of spellings('/console/join/TOKEN', token)) requests.push(['GET', url], ['HEAD', url]);
    for (const token of [refund.token, unknownRefund]) {
      for (const url of spellings('/refund/TOKEN', token)) requests.push(['GET', url], ['HEAD', url], ['POST', url]);
      requests.push(['POST', `/set_refund_addr?refund_form_token=${token}`], ['GET', `/refunds?refund_form_token=${token}`]);
    }
    requests.push(
      ['GET', `/withdrawal_quote?merchant_api_id=x&withdrawal_auth_key=${keys.withdrawal}&amount=1`],
      ['GET', `/withdrawal_quote?merchant_api_id=x&withdrawal%5Fauth%5Fkey=${keys.withdrawal}&amount=1`],
      ['GET', `/partner_merchant_wallet?merchant_api_id=x&merchant_auth_key=${keys.merchant}&partner_auth_key=${keys.partner}`],
      ['GET', `/partner_merchant_wallet?merchant_api_id=x&Merchant_Auth_Key=${keys.merchant}&partner_auth_key[]=${keys.partner}`],
      ['GET', `/get_profile?auth_token=${keys.auth}`],
      ['GET', `/no-such-path?token=${keys.auth}`],
    );
    for (const [method, url] of requests) {
      const body = method === 'POST' ? '{}' : undefined;
      const answer = await rawRequest(port, method, url, body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } });
      expect(answer.status, `${method} ${url}`).toBeLessThan(500);
    }
    // The real pages answered: the redaction hid the token, not the request.
    expect((await rawRequest(port, 'GET', `/refund/${refund.token}`)).status).toBe(200);
    expect((await rawRequest(port, 'GET', `/form/${formToken}`)).status).toBe(200);
    expect((await rawRequest(port, 'GET', `/console/join/${invitationToken}`)).status).toBe(200);
    // The refund mail went out through the outbox (its log lines are in the capture too).
    await expect.poll(async () => (await t.ctx.db.kysely.selectFrom('outbox').select('state').where('kind', '=', 'email').execute()).map((r) => r.state), { timeout: 15_000 }).toContain('delivered');

    const text = log.text();
    expect(text).toContain('/refund/[redacted]');
    expect(text).toContain('/form/[redacted]/state');
    expect(text).toContain('/console/join/[redacted]');
    expect(text).toContain('/payment_form/[redacted]');
    expect(text).toContain('notification delivered'); // the background's lines are captured too
    for (const secret of created) expect(text, `the log holds ${secret}`).not.toContain(secret);
    // Nor a recognisable piece of one (a token split by an encoding).
    for (const secret of created) expect(text).not.toContain(secret.slice(1, 16));
    // Metrics label requests by route pattern, never by URL.
    const metrics = (await rawRequest(port, 'GET', '/metrics')).body;
    expect(metrics).toContain('route="/refund/:token"');
    for (const secret of created) expect(metrics).not.toContain(secret.slice(1, 16));
  });
});

describe('routes declare the secrets their paths carry', () => {
  it('a route whose path parameter is named like a secret and not declared secret refuses to register', async () => {
    const app = Fastify();
    app.addHook('onRoute', createLogRedaction().onRoute);
    expect(() => app.get('/claim/:claim_token', async () => 'ok')).toThrow(/claim_token.*secretParams/);
    expect(() => app.get('/claim/:id', { config: { secretParams: ['claim_token'] } }, async () => 'ok')).toThrow(/does not have/);
    await app.close();
  });

  it('a declared secret parameter is redacted in every spelling of the path, and only there', async () => {
    const redaction = createLogRedaction();
    const app = Fastify();
    app.addHook('onRoute', redaction.onRoute);
    app.get('/claim/:claim_token/view', { config: { secretParams: ['claim_token'] } }, async () => 'ok');
    app.get('/claim/:id', async () => 'ok');
    await app.ready();
    expect(redaction.redactUrl('/claim/s3cret/view?x=1')).toBe('/claim/[redacted]/view?x=1');
    expect(redaction.redactUrl('/claim/s3cret')).toBe('/claim/[redacted]');
    expect(redaction.redactUrl('//claim/s3cret/other')).toBe('//claim/[redacted]/other');
    expect(redaction.redactUrl('/%63laim/s3cret')).toBe('/%63laim/[redacted]');
    expect(redaction.redactUrl('/CLAIM/s3cret')).toBe('/CLAIM/[redacted]');
    expect(redaction.redactUrl('/claims/s3cret')).toBe('/claims/s3cret');
    expect(redaction.redactText('Reply was already sent in the "/claim/s3cret/view" (GET) route')).toBe('Reply was already sent in the "/claim/[redacted]/view" (GET) route');
  });

  it('every path parameter of the real app that names a token, key or secret is declared secret', async () => {
    const t = await createTestApp('sqlite', { logStream: memoryStream().stream, env: { LOG_LEVEL: 'silent' } });
    try {
      // Booting is the check (an undeclared one throws); this pins the list so a change to it is seen in review.
      const declared = [...new Set(t.app.logRedaction.secretRoutes().map((r) => r.url))].sort();
      expect(declared).toEqual(
        ['/api/v1/pull-payments/:pullPaymentId', '/api/v1/pull-payments/:pullPaymentId/payouts', '/api/v1/pull-payments/:pullPaymentId/payouts/:payoutId', '/console/join/:invitation_token', '/form/:form_token', '/form/:form_token/fields', '/form/:form_token/qrcode', '/form/:form_token/refresh', '/form/:form_token/state', '/payment_form/:form_token', '/pos/:pos_id', '/pos/:pos_id/charges', '/pos/:pos_id/charges/:reference', '/pos/:pos_id/charges/:reference/receipt', '/refund/:token', '/request/:request_id', '/request/:request_id/pay'].sort(),
      );
    } finally {
      await t.close();
    }
  });
});
