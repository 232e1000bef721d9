// add_pub on a key that is already registered (issue 30, finding 2): it may update the local currency, the
// notification e-mail and the account name (INTERFACE.md 4.1), never the return_url, which only the signed-in owner
// changes. Every change it makes is mailed to the previous notification address and recorded in the audit trail.
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { renderEventMail } from '../notify/event-mail.ts';

const CLOCK_MS = Date.UTC(2026, 10, 21, 12, 0, 0);
const HOOK = 'https://shop.example/hooks';
const ATTACKER = 'https://attacker.example/steal';

describe.each(testEngines())('add_pub on a registered key on %s', (engine) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function boot(): Promise<TestApp> {
    t = await createTestApp(engine, { clock: () => CLOCK_MS, env: { SATGATE_PUBLIC_URL: 'https://pay.shop.example' } });
    return t;
  }

  async function addPub(body: Record<string, unknown>, ip = '198.51.100.7') {
    const res = await t!.app.inject({ method: 'POST', url: '/add_pub', payload: body, remoteAddress: ip });
    return { status: res.statusCode, body: res.json() as Record<string, string> };
  }

  const mails = () => t!.ctx.db.kysely.selectFrom('outbox').selectAll().where('kind', '=', 'email').orderBy('id').execute();
  const audit = () => t!.ctx.db.kysely.selectFrom('audit_events').selectAll().orderBy('id').execute();

  it('another return_url for a registered key is refused with 201 and changes nothing, not even the other fields', async () => {
    await boot();
    const pub = generateNewWallet(true).accountKey;
    const first = await addPub({ pub, return_url: HOOK, notification_email: 'owner@shop.example', account_name: 'Shop' });
    expect(first.body.return).toBe('0');
    const before = (await t!.ctx.wallets.repo.findByApiId(first.body.api_id!))!;

    const hijack = await addPub({ pub, return_url: ATTACKER, notification_email: 'thief@attacker.example', account_name: 'Sh0p' });
    expect(hijack.status).toBe(400);
    expect(hijack.body.return).toBe('201');
    expect(hijack.body.status).toContain('return_url');
    expect(hijack.body.status).toContain('console');
    expect(hijack.body).not.toHaveProperty('api_id');
    expect(await t!.ctx.wallets.repo.findByApiId(first.body.api_id!)).toEqual(before);
    expect(await mails()).toHaveLength(0);
  });

  it('a return_url for a registered key that has none yet is refused the same way', async () => {
    await boot();
    const pub = generateNewWallet(true).accountKey;
    const first = await addPub({ pub, notification_email: 'owner@shop.example' });
    const refused = await addPub({ pub, return_url: ATTACKER });
    expect(refused.status).toBe(400);
    expect(refused.body.return).toBe('201');
    expect((await t!.ctx.wallets.repo.findByApiId(first.body.api_id!))!.return_url).toBeNull();
  });

  it('registering the same key with the same settings again succeeds, and sends and records nothing', async () => {
    await boot();
    const pub = generateNewWallet(true).accountKey;
    const body = { pub, return_url: HOOK, notification_email: 'owner@shop.example', account_name: 'Shop', local_currency: 'eur' };
    const first = await addPub(body);
    const again = await addPub(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await mails()).toHaveLength(0);
    expect(await audit()).toHaveLength(0);
  });

  it('a new notification e-mail is mailed to the previous address with what changed, to what, and how to undo it, and audited', async () => {
    await boot();
    const pub = generateNewWallet(true).accountKey;
    const { body } = await addPub({ pub, return_url: HOOK, notification_email: 'owner@shop.example', account_name: 'Shop' });
    const changed = await addPub({ pub, return_url: HOOK, notification_email: 'new@elsewhere.example', account_name: 'Shop 2', local_currency: 'eur' }, '203.0.113.9');
    expect(changed.status).toBe(200);
    expect((await t!.ctx.wallets.repo.findByApiId(body.api_id!))).toMatchObject({ notification_email: 'new@elsewhere.example', account_name: 'Shop 2', local_currency: 'eur', return_url: HOOK });

    const queued = await mails();
    expect(queued.map((m) => m.target)).toEqual(['owner@shop.example']);
    const mail = renderEventMail(JSON.parse(queued[0]!.payload_json) as Record<string, unknown>);
    expect(mail.subject).toContain(body.api_id!);
    expect(mail.text).toContain('owner@shop.example -> new@elsewhere.example');
    expect(mail.text).toContain('"Shop" -> "Shop 2"');
    expect(mail.text).toContain('USD -> EUR');
    expect(mail.text).toContain('203.0.113.9');
    expect(mail.text).toContain('2026-11-21 12:00 UTC');
    expect(mail.text).toContain('https://pay.shop.example/console/');
    expect(mail.text).toMatch(/did not make this change/);

    const records = await audit();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ action: 'wallet_changed_by_add_pub', ip: '203.0.113.9', email: 'owner@shop.example' });
    expect(JSON.parse(records[0]!.detail_json!)).toEqual({
      api_id: body.api_id,
      changes: {
        notification_email: { from: 'owner@shop.example', to: 'new@elsewhere.example' },
        account_name: { from: 'Shop', to: 'Shop 2' },
        local_currency: { from: 'usd', to: 'eur' },
      },
    });
  });

  it('a first notification e-mail set through add_pub is audited (there is no previous address to mail)', async () => {
    await boot();
    const pub = generateNewWallet(true).accountKey;
    const { body } = await addPub({ pub });
    expect((await addPub({ pub, notification_email: 'someone@shop.example' })).status).toBe(200);
    expect(await mails()).toHaveLength(0);
    const records = await audit();
    expect(records.map((r) => r.action)).toEqual(['wallet_changed_by_add_pub']);
    expect(JSON.parse(records[0]!.detail_json!)).toEqual({ api_id: body.api_id, changes: { notification_email: { from: null, to: 'someone@shop.example' } } });
  });

  it('changes through add_pub are limited per wallet, so nobody can flood the owner with notices', async () => {
    await boot();
    const pub = generateNewWallet(true).accountKey;
    await addPub({ pub, notification_email: 'owner@shop.example', account_name: 'Shop 0' });
    for (let i = 1; i <= 10; i += 1) expect((await addPub({ pub, account_name: `Shop ${i}` })).status).toBe(200);
    const refused = await t!.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, account_name: 'Shop 11' } });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().return).toBe('201');
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await t!.ctx.wallets.repo.findByPub(pub))!.account_name).toBe('Shop 10');
    expect(await mails()).toHaveLength(10);
    // Re-registering without a change is not a change: it still answers.
    expect((await addPub({ pub, account_name: 'Shop 10' })).status).toBe(200);
  });
});
