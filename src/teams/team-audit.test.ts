// Store teams' audit trail, Owners' notices and following the role, on both engines (issue 40): every state-changing
// action is recorded with who, what, when and from which IP (never a body) and shown to Owners and Managers; Owners
// are mailed through the outbox and a real SMTP server when the team gains power; removing a member signs them out
// at once; a key a member created carries only what their current role allows, and nothing once they left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { readMail, startSmtpCapture, type SmtpCapture } from '../../test/support/smtp-capture.ts';
import { eventually } from '../../test/support/server-process.ts';
import { gf } from '../../test/support/greenfield.ts';
import { TeamMember } from '../../test/support/team-member.ts';
import { associateByOperator } from '../dashboard/accounts.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const ORIGIN = 'http://console.example';

describe.each(testEngines())('the audit trail and following the role on %s', (engine) => {
  let t: TestApp;
  let smtp: SmtpCapture;
  let apiId: string;
  let owner: TeamMember;
  let manager: TeamMember;
  let cashier: TeamMember;
  let developer: TeamMember;

  const trail = () => t.ctx.db.kysely.selectFrom('wallet_audit').selectAll().orderBy('id').execute();
  const notices = async () =>
    (await t.ctx.db.kysely.selectFrom('outbox').select(['target', 'payload_json']).where('kind', '=', 'email').orderBy('id').execute())
      .map((r): Record<string, unknown> => ({ to: r.target, ...(JSON.parse(r.payload_json) as Record<string, unknown>) }))
      .filter((p) => p.event === 'team_notice');
  const mailTo = (to: string, subject: RegExp) =>
    eventually(async () => smtp.mails.map(readMail).find((m) => m.to === to && subject.test(m.subject)), 30_000, `a mail to ${to} matching ${String(subject)}`);

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_PUBLIC_URL: ORIGIN, SATGATE_SMTP_URL: smtp.url }, chains: DEAD_NODE, start: true });
    apiId = await addSandboxWallet(t.app, { account_name: 'Audit Shop', notification_email: 'owner@example.com', local_currency: 'usd' });
    await associateByOperator(t.ctx.db, apiId, 'owner@example.com', Date.now());
    owner = await new TeamMember(t.app, 'owner@example.com', ORIGIN, '203.0.113.1').signIn(t.ctx.db);
    manager = await new TeamMember(t.app, 'manager@example.com', ORIGIN, '203.0.113.2').signIn(t.ctx.db);
    cashier = await new TeamMember(t.app, 'cashier@example.com', ORIGIN, '203.0.113.3').signIn(t.ctx.db);
    developer = await new TeamMember(t.app, 'developer@example.com', ORIGIN, '203.0.113.4').signIn(t.ctx.db);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('records who added a member, on which wallet, when and from which IP, and tells every Owner by e-mail', async () => {
    const before = Date.now();
    expect((await owner.api('POST', `/dashboard/wallets/${apiId}/members`, { email: manager.email, role: 'Manager' })).statusCode).toBe(200);
    const added = await owner.request('POST', `/console/wallets/${apiId}/members`, { csrf: owner.csrf, op: 'add', email: cashier.email, role: 'Cashier' });
    expect(added.statusCode, added.body).toBe(303);
    const rows = (await trail()).filter((r) => r.action === 'manage_members');
    expect(rows.map((r) => [r.actor_kind, r.actor, r.route, r.detail, r.ip])).toEqual([
      ['member', owner.email, 'POST /dashboard/wallets/:api_id/members', `added ${manager.email} as Manager`, '203.0.113.1'],
      ['member', owner.email, 'POST /console/wallets/:api_id/members', `added ${cashier.email} as Cashier`, '203.0.113.1'],
    ]);
    const wallet = await t.ctx.wallets.repo.findByApiId(apiId);
    expect(rows.every((r) => r.wallet_id === wallet!.id && Number(r.created_at) >= before && r.status < 400n)).toBe(true);
    // Through the outbox and the real SMTP server, to the Owner (the only one), naming who did it.
    const mail = await mailTo(owner.email, /cashier@example\.com joined wallet .* as Cashier/);
    expect(mail.text).toContain(`${owner.email} added ${cashier.email} to the wallet ${apiId}`);
    expect(mail.text).toContain(`${ORIGIN}/console/`);
  });

  it('records a settings change without anything posted, and nothing for a refused or failed request', async () => {
    const count = (await trail()).length;
    // A Cashier may not change settings: 403, not recorded.
    expect((await cashier.request('POST', `/console/wallets/${apiId}`, { csrf: cashier.csrf, account_name: 'Cashier Was Here' })).statusCode).toBe(403);
    // A bad value: 400, nothing changed, not recorded.
    expect((await owner.request('POST', `/console/wallets/${apiId}`, { csrf: owner.csrf, local_currency: 'not-a-currency' })).statusCode).toBe(400);
    expect((await trail()).length).toBe(count);
    const saved = await manager.request('POST', `/console/wallets/${apiId}`, { csrf: manager.csrf, account_name: 'Renamed By Manager' });
    expect(saved.statusCode, saved.body).toBe(303);
    const rows = await trail();
    expect(rows.length).toBe(count + 1);
    const last = rows.at(-1)!;
    expect([last.actor, last.action, last.route, last.ip]).toEqual([manager.email, 'change_settings', 'POST /console/wallets/:api_id', '203.0.113.2']);
    // No body, no token: nothing of what was posted or of the session is in the row.
    expect(JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toMatch(new RegExp(`Renamed By Manager|${manager.token}|${manager.csrf}`));
  });

  it('shows the trail per wallet on the console to Owners and Managers, and refuses it to other roles by URL too', async () => {
    const url = `/console/wallets/${apiId}/audit`;
    expect((await owner.request('GET', `/console/wallets/${apiId}`)).body).toContain(`href="${url}"`);
    for (const m of [owner, manager]) {
      const page = await m.request('GET', url);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`added ${cashier.email} as Cashier`);
      expect(page.body).toContain('203.0.113.2');
      expect(page.body).toContain('POST /console/wallets/:api_id');
    }
    const refused = await cashier.request('GET', url);
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('Refused');
    expect(refused.body).not.toContain('203.0.113.1');
    // Not a member at all: the wallet is unknown to them.
    expect((await developer.request('GET', url)).statusCode).toBe(404);
  });

  it('mails the Owners when a role is raised or a key that can refund or withdraw is created, and not when a role is lowered or a key cannot move money', async () => {
    expect((await owner.api('POST', `/dashboard/wallets/${apiId}/members`, { email: developer.email, role: 'Guest' })).statusCode).toBe(200);
    expect((await owner.api('POST', `/dashboard/wallets/${apiId}/members/change`, { email: developer.email, role: 'Manager' })).statusCode).toBe(200);
    const raised = await mailTo(owner.email, /developer@example\.com is now Manager/);
    expect(raised.text).toContain('from Guest to Manager');
    const before = (await notices()).length;
    // Lowered (a Developer may do nothing a Manager may not): no notice. A key that only reads payments and manages
    // webhooks: no notice.
    expect((await owner.api('POST', `/dashboard/wallets/${apiId}/members/change`, { email: developer.email, role: 'Developer' })).statusCode).toBe(200);
    expect((await developer.authorizeKey(apiId, ['btcpay.store.canviewinvoices', 'btcpay.store.webhooks.canmodifywebhooks'])).statusCode).toBe(200);
    expect((await notices()).length).toBe(before);
    const created = await manager.authorizeKey(apiId, ['btcpay.store.canmodifyinvoices', 'btcpay.store.cancreatepullpayments']);
    expect(created.statusCode, created.body).toBe(200);
    const apiKey = /<code>([0-9a-f]{40})<\/code>/.exec(created.body)![1]!;
    const mail = await mailTo(owner.email, /API key that can move money/);
    expect(mail.text).toMatch(/created the Greenfield API key gfk_[0-9a-f]{16} for the wallet/);
    expect(mail.text).toContain('btcpay.store.cancreatepullpayments');
    expect(mail.text).not.toContain(apiKey);
    // The key's creation is in the trail with the key's public id, never the key.
    const row = (await trail()).find((r) => r.route === 'POST /api-keys/authorize/decide' && r.actor === manager.email)!;
    expect(row.detail).toMatch(/^API key gfk_[0-9a-f]{16}: btcpay\.store\.canmodifyinvoices, btcpay\.store\.cancreatepullpayments$/);
    expect(JSON.stringify((await trail()).map((r) => r.detail))).not.toContain(apiKey);
  });

  it("records a Greenfield key's state-changing calls by the key's id, and cuts a member's key down to their role as soon as it is lowered", async () => {
    const res = await developer.authorizeKey(apiId, ['btcpay.store.canviewinvoices', 'btcpay.store.webhooks.canmodifywebhooks']);
    const key = /<code>([0-9a-f]{40})<\/code>/.exec(res.body)![1]!;
    const hooks = `/api/v1/stores/${apiId}/webhooks`;
    const made = await gf(t.app, key, 'POST', hooks, { url: 'https://shop.example/hook' });
    expect(made.statusCode, made.body).toBe(200);
    const row = (await trail()).at(-1)!;
    const keyId = (await t.ctx.greenfield.keys.list(apiId)).at(-1)!.keyId;
    expect([row.actor_kind, row.actor, row.route, row.action]).toEqual(['key', keyId, 'POST /api/v1/stores/:storeId/webhooks', null]);
    expect(row.target).toBeNull();
    // Lowered to Guest: the key keeps only what a Guest may (reading payments), on its very next request.
    expect((await owner.api('POST', `/dashboard/wallets/${apiId}/members/change`, { email: developer.email, role: 'Guest' })).statusCode).toBe(200);
    expect((await gf(t.app, key, 'GET', '/api/v1/api-keys/current')).json().permissions).toEqual([`btcpay.store.canviewinvoices:${apiId}`]);
    expect((await gf(t.app, key, 'GET', hooks)).statusCode).toBe(403);
    // Raised again: what the key was created with, never more.
    expect((await owner.api('POST', `/dashboard/wallets/${apiId}/members/change`, { email: developer.email, role: 'Owner' })).statusCode).toBe(200);
    expect((await gf(t.app, key, 'GET', '/api/v1/api-keys/current')).json().permissions.sort()).toEqual([`btcpay.store.canviewinvoices:${apiId}`, `btcpay.store.webhooks.canmodifywebhooks:${apiId}`]);
    expect((await gf(t.app, key, 'GET', hooks)).statusCode).toBe(200);
  });

  it('reduces a broad key to the narrower permissions within the new role, and a removed member is signed out at once and their keys stop', async () => {
    const created = await manager.authorizeKey(apiId, ['btcpay.store.canmodifyinvoices']);
    const key = /<code>([0-9a-f]{40})<\/code>/.exec(created.body)![1]!;
    // Modifying invoices may refund; a Cashier keeps creating and viewing them.
    expect((await owner.api('POST', `/dashboard/wallets/${apiId}/members/change`, { email: manager.email, role: 'Cashier' })).statusCode).toBe(200);
    expect((await gf(t.app, key, 'GET', '/api/v1/api-keys/current')).json().permissions.sort()).toEqual([`btcpay.store.cancreateinvoice:${apiId}`, `btcpay.store.canviewinvoices:${apiId}`]);
    // Signed in on the console and the dashboard API until the Owner removes them…
    expect((await manager.request('GET', '/console/wallets')).statusCode).toBe(200);
    expect((await manager.api('GET', '/dashboard/wallets')).statusCode).toBe(200);
    expect((await owner.request('POST', `/console/wallets/${apiId}/members`, { csrf: owner.csrf, op: 'remove', email: manager.email })).statusCode).toBe(303);
    // …then their next request is signed out, on both faces, and their keys are no longer valid.
    const page = await manager.request('GET', `/console/wallets/${apiId}`);
    expect([page.statusCode, page.headers.location]).toEqual([303, '/console/login']);
    const api = await manager.api('GET', `/dashboard/wallets/${apiId}`);
    expect(api.statusCode).toBe(401);
    expect((await gf(t.app, key, 'GET', '/api/v1/api-keys/current')).statusCode).toBe(401);
    // The Owner's own session is untouched, and the removal is in the trail.
    expect((await owner.request('GET', `/console/wallets/${apiId}/audit`)).body).toContain(`removed ${manager.email}`);
  });
});
