// Invitations to a wallet's team on both engines, through the console's pages and a real SMTP server: an Owner
// invites an e-mail with a role, the mail arrives with a single-use link, the invitee opens it and signs in by the
// code mailed to that address and is then a member with that role; the link cannot be used again, an expired or
// withdrawn one is refused with a page that says so, and someone signed in with another e-mail cannot accept it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet } from '../../test/support/payment-api.ts';
import { readMail, startSmtpCapture, takeLoginMail, type SmtpCapture } from '../../test/support/smtp-capture.ts';
import { eventually } from '../../test/support/server-process.ts';
import { associateByOperator } from '../dashboard/accounts.ts';
import { INVITATION_DAYS } from './invitations.ts';

const DEAD_NODE = { test: { rpcUrl: 'http://127.0.0.1:9', network: 'regtest' as const } };
const ORIGIN = 'http://console.example';
const DAY = 86_400_000;

/** A browser's cookie jar and the console's forms, over inject. */
class Visitor {
  cookies = new Map<string, string>();
  csrf = '';
  constructor(
    readonly app: FastifyInstance,
    readonly email: string,
  ) {}
  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string>): Promise<LightMyRequestResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const body = form ? new URLSearchParams(form).toString() : undefined;
    const res = await this.app.inject({
      method,
      url: url.startsWith(ORIGIN) ? url.slice(ORIGIN.length) : url,
      headers: {
        host: 'console.example',
        ...(cookie ? { cookie } : {}),
        ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN, 'sec-fetch-site': 'same-origin' } : {}),
      },
      ...(body !== undefined ? { payload: body } : {}),
    });
    const set = res.headers['set-cookie'];
    for (const line of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair] = line.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (value === '' || /Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
  /** Signs in on the console's pages with the code from the captured mail; returns the answer to the code step. */
  async signIn(smtp: SmtpCapture): Promise<LightMyRequestResponse> {
    expect((await this.request('POST', '/console/login', { email: this.email })).statusCode).toBe(200);
    const { code } = await takeLoginMail(smtp, this.email);
    const res = await this.request('POST', '/console/login/code', { email: this.email, otp: code });
    expect(res.statusCode, res.body).toBe(303);
    this.csrf = /name="csrf" value="([^"]+)"/.exec((await this.request('GET', '/console/profile')).body)![1]!;
    return res;
  }
}

describe.each(testEngines())('invitations to a wallet team on %s', (engine) => {
  let t: TestApp;
  let smtp: SmtpCapture;
  let apiId: string;
  let owner: Visitor;
  let cashier: Visitor;
  let offset = 0;
  const members = () => `/console/wallets/${apiId}/members`;

  /** Invites by the Members page and returns the link of the mail that arrives at the SMTP server. */
  async function invite(email: string, role: string): Promise<string> {
    const res = await owner.request('POST', members(), { csrf: owner.csrf, op: 'invite', email, role });
    expect(res.statusCode, res.body).toBe(303);
    const raw = await eventually(async () => smtp.mails.find((m) => m.includes(`To: ${email}`)), 20_000, `the invitation mail to ${email}`);
    smtp.mails.splice(smtp.mails.indexOf(raw), 1);
    const mail = readMail(raw);
    expect(mail.subject).toBe('Invitation to the wallet "Team Shop" on satgate');
    expect(mail.text).toContain(`with the role ${role}`);
    const link = /http:\/\/console\.example\/console\/join\/[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0];
    expect(link, mail.text).toBeDefined();
    return link!;
  }

  const roleOf = async (email: string) =>
    (await t.ctx.db.kysely.selectFrom('wallet_members as m').innerJoin('profiles as p', 'p.id', 'm.profile_id').select('m.role').where('p.email', '=', email).executeTakeFirst())?.role ?? null;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }), SATGATE_PUBLIC_URL: ORIGIN, SATGATE_SMTP_URL: smtp.url },
      chains: DEAD_NODE,
      clock: () => Date.now() + offset,
      start: true,
    });
    apiId = await addSandboxWallet(t.app, { account_name: 'Team Shop', notification_email: 'owner@example.com', local_currency: 'usd' });
    await associateByOperator(t.ctx.db, apiId, 'owner@example.com', Date.now());
    owner = new Visitor(t.app, 'owner@example.com');
    await owner.signIn(smtp);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('an invited cashier opens the mailed link, signs in by code with that e-mail and is a member with the role; the link then works no more', async () => {
    const link = await invite('cashier@example.com', 'Cashier');
    expect((await owner.request('GET', members())).body).toMatch(/Pending invitations[\s\S]*cashier@example\.com<\/td><td>Cashier/);
    // The token is stored only hashed.
    const stored = await t.ctx.db.kysely.selectFrom('wallet_invitations').selectAll().where('email', '=', 'cashier@example.com').executeTakeFirstOrThrow();
    expect(link).not.toContain(stored.token_hash);
    expect(Number(stored.expires_at) - Number(stored.created_at)).toBe(INVITATION_DAYS * DAY);

    cashier = new Visitor(t.app, 'cashier@example.com');
    const page = await cashier.request('GET', link);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('with the role <strong>Cashier</strong>');
    // Not signed in: continuing leads to the sign-in.
    const next = await cashier.request('GET', '/console/invitations/continue');
    expect(next.statusCode).toBe(303);
    expect(next.headers.location).toBe('/console/login');
    expect(await roleOf('cashier@example.com')).toBeNull();

    const signedIn = await cashier.signIn(smtp);
    expect(signedIn.headers.location).toBe('/console/wallets?ok=joined');
    expect(await roleOf('cashier@example.com')).toBe('Cashier');
    const wallets = await cashier.request('GET', signedIn.headers.location as string);
    expect(wallets.body).toContain('You joined the wallet');
    expect(wallets.body).toContain(apiId);
    // The console offers the cashier only what the role allows, and refuses the rest by URL too.
    const nav = /<nav class="nav"[\s\S]*?<\/nav>/.exec(wallets.body)![0];
    for (const shown of ['Wallets', 'Payments', 'Requests', 'Point of sale', 'Profile']) expect(nav).toContain(`>${shown}</a>`);
    for (const hidden of ['Pay buttons', 'Refunds', 'Payouts', 'Reports']) expect(nav).not.toContain(`>${hidden}</a>`);
    expect(wallets.body).not.toContain(`href="/console/wallets/${apiId}"`);
    const settings = await cashier.request('GET', `/console/wallets/${apiId}`);
    expect(settings.statusCode).toBe(403);
    expect(settings.body).toContain('Refused');
    expect(settings.body).not.toContain('name="webhook_url"');
    const pos = await cashier.request('GET', '/console/pos');
    expect(pos.statusCode).toBe(200);
    expect(pos.body).not.toContain('New point of sale');
    // The Owner is offered everything.
    const ownerNav = (await owner.request('GET', '/console/wallets')).body;
    for (const shown of ['Pay buttons', 'Refunds', 'Payouts', 'Reports']) expect(ownerNav).toContain(`>${shown}</a>`);
    expect(ownerNav).toContain(`href="/console/wallets/${apiId}"`);
    expect((await owner.request('GET', '/console/pos')).body).toContain('New point of sale');
    const listed = await owner.request('GET', members());
    expect(listed.body).not.toContain('Pending invitations');
    expect(listed.body).toContain('cashier@example.com');

    // Single use: the link answers that it was used, and accepting again is refused.
    const again = await new Visitor(t.app, 'cashier@example.com').request('GET', link);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('already used');
    cashier.cookies.set('satgate_invitation', link.slice(link.lastIndexOf('/') + 1));
    const reused = await cashier.request('POST', '/console/invitations/accept', { csrf: cashier.csrf });
    expect(reused.statusCode).toBe(410);
    expect(reused.body).toContain('already used');
  });

  it('someone signed in with another e-mail cannot accept an invitation, and the invitee still can', async () => {
    const link = await invite('dev@example.com', 'Developer');
    const other = new Visitor(t.app, 'intruder@example.com');
    expect((await other.request('GET', link)).statusCode).toBe(200);
    const signedIn = await other.signIn(smtp);
    expect(signedIn.headers.location).toBe('/console/invitations/continue');
    const page = await other.request('GET', '/console/invitations/continue');
    expect(page.statusCode).toBe(403);
    expect(page.body).toContain('for another e-mail address');
    const forced = await other.request('POST', '/console/invitations/accept', { csrf: other.csrf });
    expect(forced.statusCode).toBe(403);
    expect(await roleOf('intruder@example.com')).toBeNull();

    // The invitee, already signed in elsewhere, confirms with the button.
    const dev = new Visitor(t.app, 'dev@example.com');
    await dev.signIn(smtp);
    expect((await dev.request('GET', link)).statusCode).toBe(200);
    const confirm = await dev.request('GET', '/console/invitations/continue');
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Join Team Shop');
    const joined = await dev.request('POST', '/console/invitations/accept', { csrf: dev.csrf });
    expect(joined.statusCode).toBe(303);
    expect(await roleOf('dev@example.com')).toBe('Developer');
  });

  it('an Owner withdraws a pending invitation: its link says so and cannot be accepted', async () => {
    const link = await invite('guest@example.com', 'Guest');
    const id = /name="invitation" value="([0-9]+)"/.exec((await owner.request('GET', members())).body)![1]!;
    const withdrawn = await owner.request('POST', members(), { csrf: owner.csrf, op: 'revoke', invitation: id });
    expect(withdrawn.statusCode).toBe(303);
    const page = await new Visitor(t.app, 'guest@example.com').request('GET', link);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('withdrawn');
    expect((await owner.request('POST', members(), { csrf: owner.csrf, op: 'revoke', invitation: id })).statusCode).toBe(404);
    // Only Owners invite: the cashier's attempt is refused, and nothing is mailed.
    const refused = await cashier.request('POST', members(), { csrf: cashier.csrf, op: 'invite', email: 'friend@example.com', role: 'Owner' });
    expect(refused.statusCode).toBe(403);
    expect(await t.ctx.db.kysely.selectFrom('wallet_invitations').select('id').where('email', '=', 'friend@example.com').execute()).toEqual([]);
    // Bad input is a clear refusal, nothing stored.
    expect((await owner.request('POST', members(), { csrf: owner.csrf, op: 'invite', email: 'not-an-address', role: 'Guest' })).statusCode).toBe(400);
    expect((await owner.request('POST', members(), { csrf: owner.csrf, op: 'invite', email: 'x@example.com', role: 'King' })).statusCode).toBe(400);
  });

  it('the dashboard API invites, lists and withdraws for an Owner, in its envelope, and refuses a Cashier', async () => {
    const api = (v: Visitor, method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: { authorization: v.cookies.get('satgate_console')! }, ...(payload ? { payload } : {}) });
    const base = `/dashboard/wallets/${apiId}/invitations`;
    const sent = await api(owner, 'POST', base, { email: 'Bookkeeper@Example.com', role: 'Accountant' });
    expect(sent.statusCode, sent.body).toBe(200);
    await eventually(async () => smtp.mails.find((m) => m.includes('To: bookkeeper@example.com')), 20_000, 'the invitation mail');
    const listed = (await api(owner, 'GET', base)).json() as { invitations: { id: string; email: string; role: string; invited_by: string }[] };
    const pending = listed.invitations.find((i) => i.email === 'bookkeeper@example.com')!;
    expect(pending).toMatchObject({ role: 'Accountant', invited_by: 'owner@example.com' });
    expect((await api(owner, 'POST', `${base}/revoke`, { invitation: pending.id })).statusCode).toBe(200);
    expect(((await api(owner, 'GET', base)).json() as { invitations: { email: string }[] }).invitations.map((i) => i.email)).not.toContain('bookkeeper@example.com');
    expect((await api(owner, 'POST', `${base}/revoke`, { invitation: pending.id })).json()).toMatchObject({ return: '999' });
    expect((await api(owner, 'POST', base, { email: 'x@example.com', role: 'owner' })).statusCode).toBe(400);
    const refused = await api(cashier, 'POST', base, { email: 'friend2@example.com', role: 'Guest' });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toMatch(/json/);
  });

  it('an invitation link older than 7 days is refused with a page that says it expired', async () => {
    const link = await invite('late@example.com', 'Accountant');
    offset = INVITATION_DAYS * DAY + 60_000;
    try {
      const late = new Visitor(t.app, 'late@example.com');
      const page = await late.request('GET', link);
      expect(page.statusCode).toBe(410);
      expect(page.body).toContain('expired');
      // Even with the token kept from before, signing in does not make them a member.
      late.cookies.set('satgate_invitation', link.slice(link.lastIndexOf('/') + 1));
      const signedIn = await late.signIn(smtp);
      expect(signedIn.headers.location).toBe('/console/invitations/continue');
      expect((await late.request('GET', '/console/invitations/continue')).body).toContain('expired');
      expect(await roleOf('late@example.com')).toBeNull();
    } finally {
      offset = 0;
    }
  });
});
