import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { addSandboxWallet, createClient, customRequest, postPayment, tokenFor } from '../../test/support/payment-api.ts';
import { hashToken } from '../security/tokens.ts';
import type { LookedUpWallet } from './oauth.ts';

describe.each(testEngines())('OAuth 2.0 client credentials on %s', (engine) => {
  let t: TestApp;
  let now = Date.now();
  let apiId: string;
  let otherApiId: string;
  let client: { client_id: string; client_secret: string; webhook_secret: string };

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile() }, clock: () => now, start: true });
    apiId = await addSandboxWallet(t.app);
    otherApiId = await addSandboxWallet(t.app);
    client = await createClient(t.ctx, [apiId]);
  });
  afterAll(async () => {
    await t?.close();
  });

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  const token = (payload: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload });

  it('a client authenticated by HTTP Basic gets a one-hour bearer token that must not be cached', async () => {
    const res = await token('grant_type=client_credentials', { authorization: basic(client.client_id, client.client_secret) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 });
    expect(body.access_token.length).toBeGreaterThanOrEqual(40);
  });

  it('form fields and a JSON body authenticate a client too', async () => {
    const form = await token(`grant_type=client_credentials&client_id=${client.client_id}&client_secret=${encodeURIComponent(client.client_secret)}`);
    expect(form.statusCode, form.body).toBe(200);
    const json = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
    });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.json().token_type).toBe('Bearer');
  });

  it('secrets and tokens are stored only as hashes', async () => {
    const issued = await tokenFor(t.app, client);
    const clients = await t.testDb.db.kysely.selectFrom('oauth_clients').selectAll().execute();
    expect(JSON.stringify(clients, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(client.client_secret);
    expect(clients.find((c) => c.client_id === client.client_id)?.secret_hash).toBe(hashToken(client.client_secret));
    const tokens = await t.testDb.db.kysely.selectFrom('oauth_tokens').select('token_hash').execute();
    expect(tokens.map((r) => r.token_hash)).toContain(hashToken(issued));
    expect(tokens.map((r) => r.token_hash)).not.toContain(issued);
    const secrets = await t.testDb.db.kysely.selectFrom('webhook_secrets').selectAll().execute();
    expect(JSON.stringify(secrets, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(client.webhook_secret);
    expect(client.webhook_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  });

  it('a wrong secret or unknown client is invalid_client with 401 and a Basic challenge', async () => {
    const wrong = await token('grant_type=client_credentials', { authorization: basic(client.client_id, 'nope') });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ error: 'invalid_client' });
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic realm="satgate"/);
    const unknown = await token(`grant_type=client_credentials&client_id=cli_unknown&client_secret=${encodeURIComponent(client.client_secret)}`);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().error).toBe('invalid_client');
    const none = await token('grant_type=client_credentials');
    expect(none.statusCode).toBe(401);
    expect(none.json().error).toBe('invalid_client');
  });

  it('a missing grant type is invalid_request and another grant is unsupported_grant_type', async () => {
    const auth = { authorization: basic(client.client_id, client.client_secret) };
    const missing = await token('', auth);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('invalid_request');
    const password = await token('grant_type=password&username=a&password=b', auth);
    expect(password.statusCode).toBe(400);
    expect(password.json().error).toBe('unsupported_grant_type');
    const both = await token(`grant_type=client_credentials&client_id=${client.client_id}`, auth);
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toBe('invalid_request');
    const badJson = await t.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/json' }, payload: '{"grant_type":' });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().error).toBe('invalid_request');
  });

  it('operation 26 answers 401 problems for a missing, unknown or expired token', async () => {
    const missing = await postPayment(t.app, null, customRequest(apiId));
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="satgate"');
    expect(missing.json()).toMatchObject({ status: 401, title: 'Unauthorized' });

    const unknown = await postPayment(t.app, 'not-a-token', customRequest(apiId));
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers['www-authenticate']).toContain('error="invalid_token"');

    const issued = await tokenFor(t.app, client);
    now += 3600 * 1000;
    const expired = await postPayment(t.app, issued, customRequest(apiId));
    now = Date.now();
    expect(expired.statusCode).toBe(401);
    expect(expired.json().detail).toMatch(/expired/);
  });

  it('operation 26 answers 403 for an API ID the client is not bound to and 404 for an unknown one', async () => {
    const issued = await tokenFor(t.app, client);
    const other = await postPayment(t.app, issued, customRequest(otherApiId));
    expect(other.statusCode, other.body).toBe(403);
    expect(other.json()).toMatchObject({ status: 403, title: 'Forbidden' });
    const unknown = await postPayment(t.app, issued, customRequest(`test_${'0'.repeat(32)}`));
    expect(unknown.statusCode, unknown.body).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('the bearer check made with an API ID finds the same wallet and binding as the wallet lookup on its own', async () => {
    const header = `Bearer ${await tokenFor(t.app, client)}`;
    const { oauth } = t.ctx.payments;
    for (const id of [apiId, otherApiId, `test_${'0'.repeat(32)}`]) {
      const check = await oauth.checkBearer(header, id);
      if (!check.ok) throw new Error(`token refused: ${check.reason}`);
      expect(check.looked).toEqual({ apiId: id, found: await oauth.walletFor(check.clientRowId, id) });
    }
    const found = ((await oauth.checkBearer(header, apiId)) as { looked: LookedUpWallet }).looked.found!;
    expect(found.bound).toBe(true);
    expect(found.wallet.api_id).toBe(apiId);
    // The combined query names its own columns apart from the wallet's, which it returns whole.
    const walletColumns = Object.keys(found.wallet);
    for (const added of ['token_client', 'token_expires_at', 'client_revoked_at', 'bound_client']) expect(walletColumns).not.toContain(added);
  });

  it('the bearer check made with an API ID refuses a revoked client and an expired token as the plain one does', async () => {
    const revocable = await createClient(t.ctx, [apiId]);
    const header = `Bearer ${await tokenFor(t.app, revocable)}`;
    const { oauth } = t.ctx.payments;
    now += 3600 * 1000;
    expect(await oauth.checkBearer(header, apiId)).toEqual({ ok: false, reason: 'expired' });
    now = Date.now();
    await t.ctx.db.kysely.updateTable('oauth_clients').set({ revoked_at: BigInt(now) }).where('client_id', '=', revocable.client_id).execute();
    expect(await oauth.checkBearer(header, apiId)).toEqual({ ok: false, reason: 'invalid' });
    expect(await oauth.checkBearer(header)).toEqual({ ok: false, reason: 'invalid' });
    expect(await oauth.checkBearer('Bearer unknown-token', apiId)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('a client bound to several API IDs shares one new webhook secret among wallets that had none', async () => {
    const a = await addSandboxWallet(t.app);
    const b = await addSandboxWallet(t.app);
    const multi = await createClient(t.ctx, [a, b]);
    expect(multi.notes).toEqual([]);
    const again = await createClient(t.ctx, [a]);
    expect(again.webhook_secret).toBe(multi.webhook_secret);
    expect(again.notes[0]).toMatch(/keeps its existing webhook secret/);
  });
});
