// The dashboard end to end over real HTTP on both engines: a code mailed through real SMTP (smtp-server),
// login, profile, accounts associated by the registration e-mail, a regtest payment listed by API ID, what
// another profile's session can learn, and a database dump holding no code and no token in clear.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { startSmtpCapture, takeLoginMail, type SmtpCapture } from '../../test/support/smtp-capture.ts';
import { containsSecret, dumpTables, rawSqliteFiles } from '../../test/support/db-dump.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { decodeAddress } from '../bitcoin/address.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe.each(testEngines())('the dashboard flow on %s', (engine) => {
  let t: TestApp;
  let origin: string;
  let smtp: SmtpCapture;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = await createTestApp(engine, {
      env: {
        SATGATE_RATES_FILE: writeRatesFile({ USD: '50000.00' }),
        SATGATE_SMTP_URL: smtp.url,
      },
      chains: { test: { rpcUrl: node.rpcUrl, network: 'regtest' } },
      start: true,
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  async function call(method: 'GET' | 'POST', path: string, body?: unknown, token?: string) {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: token } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  async function mailedCode(to: string): Promise<string> {
    const { mail, code } = await takeLoginMail(smtp, to);
    expect(mail).toMatch(/Subject: Your satgate dashboard login code/);
    expect(mail).toMatch(/valid for 10 minutes/);
    expect(mail).toMatch(/If you did not ask for it, you can ignore this e-mail/);
    return code;
  }

  it('send_otp, the code from SMTP, check_otp, profile, accounts, and a regtest payment listed by API ID', async () => {
    const email = 'owner@flow-shop.example';
    const mine = generateNewWallet(true).accountKey;
    const theirs = generateNewWallet(true).accountKey;
    const unproven = generateNewWallet(true).accountKey;
    const addPub = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/add_pub', body);
      expect(res.body.return, JSON.stringify(res.body)).toBe('0');
      return res.body.api_id as string;
    };
    const myApiId = await addPub({ pub: mine, notification_email: 'Owner@Flow-Shop.example', account_name: 'Flow Shop', account_type: 'donations', local_currency: 'usd' });
    const theirApiId = await addPub({ pub: theirs, notification_email: 'someone@else.example' });
    // Registered without an e-mail, then given this profile's e-mail by an unauthenticated add_pub: not proof.
    await addPub({ pub: unproven });
    await addPub({ pub: unproven, notification_email: email });

    expect((await call('POST', '/send_otp', { email, firstname: 'Olive' })).body).toEqual({ return: '0', status: 'OK' });
    const code = await mailedCode(email);
    const checked = await call('POST', '/check_otp', { email, otp: code });
    expect(checked.status).toBe(200);
    const token = checked.body.token as string;

    expect((await call('GET', '/get_profile', undefined, token)).body).toEqual({
      return: '0',
      status: 'OK',
      email,
      firstname: 'Olive',
      lastname: null,
      mobile: null,
      country: null,
    });
    expect((await call('POST', '/update_profile', { lastname: 'Owner', country: 'NL' }, `Bearer ${token}`)).body.return).toBe('0');
    expect((await call('GET', '/get_profile', undefined, token)).body).toMatchObject({ lastname: 'Owner', country: 'NL' });

    const accounts = await call('POST', '/get_accounts', { pubkeys: [mine, theirs, unproven, 'xpub-not-a-key'] }, token);
    expect(accounts.body).toEqual({
      return: '0',
      status: 'OK',
      auth_token: token,
      accounts: [{ api_id: myApiId, account_name: 'Flow Shop', account_type: 'donation', settlement_mode: 'direct', local_currency: 'usd' }],
    });
    // Associations persist: later calls list the account without pubkeys, token in the body.
    expect((await call('POST', '/get_accounts', { auth_token: token })).body.accounts).toHaveLength(1);

    const order = await call('POST', '/set_addr', { api_id: myApiId });
    expect(order.body.return, JSON.stringify(order.body)).toBe('0');
    const address = order.body.addr as string;
    const paid = await node.pay(decodeAddress(address).script, 150_000n);
    await node.mine(1);
    await t.ctx.chains.pollNow();
    const txs = await call('GET', `/tx/${myApiId}`, undefined, token);
    expect(txs.status).toBe(200);
    expect(txs.body.auth_token).toBe(token);
    expect(txs.body.tx).toEqual([expect.objectContaining({ txid: paid.txid, address, value: '0.0015', confirmation: 1, debit: 0, local_currency: 'usd' })]);
    await node.mine(1);
    await t.ctx.chains.pollNow();
    expect((await call('GET', `/tx/${myApiId}`, undefined, token)).body.tx[0].confirmation).toBe(2);

    // Operation 5 is unchanged: the key without a token lists the same transaction.
    const byKey = await call('GET', `/tx/${mine}`);
    expect(byKey.body.tx.map((x: { txid: string }) => x.txid)).toEqual([paid.txid]);
    expect(byKey.body.auth_token).toBeUndefined();
    // An API ID without a token asks for one.
    expect(await call('GET', `/tx/${myApiId}`)).toEqual({ status: 401, body: { return: '302', status: expect.any(String) } });

    // Another wallet's API ID and an unknown one answer exactly alike.
    const other = await call('GET', `/tx/${theirApiId}`, undefined, token);
    const unknown = await call('GET', `/tx/test_${'0'.repeat(32)}`, undefined, token);
    expect(other).toEqual({ status: 401, body: { return: '303', status: 'Token invalid for this API ID' } });
    expect(unknown).toEqual(other);

    // Profile B's session sees none of profile A's wallets.
    const emailB = 'someone@else.example';
    await call('POST', '/send_otp', { email: emailB });
    const tokenB = (await call('POST', '/check_otp', { email: emailB, otp: await mailedCode(emailB) })).body.token as string;
    const accountsB = await call('POST', '/get_accounts', { pubkeys: [mine] }, tokenB);
    expect(accountsB.body.accounts).toEqual([]);
    expect(await call('GET', `/tx/${myApiId}`, undefined, tokenB)).toEqual(unknown);

    const audit = await t.ctx.dashboard.audit({ email });
    expect(audit.map((a) => a.action)).toEqual(['otp_sent', 'login', 'profile_updated', 'wallet_associated', 'association_refused', 'association_refused', 'association_refused']);
    expect(audit.every((a) => a.ip === '127.0.0.1')).toBe(true);

    // A dump of the database (and SQLite's raw files) holds neither the code nor a session token in clear.
    const dump = await dumpTables(t.testDb.db);
    expect(dump).toContain(email); // the dump is real
    for (const secret of [code, token, tokenB]) expect(containsSecret(dump, secret), secret).toBe(false);
    if (engine === 'sqlite') {
      const raw = rawSqliteFiles(t.testDb.env.SATGATE_DATA_DIR!);
      expect(raw).toContain(email);
      for (const secret of [code, token, tokenB]) expect(containsSecret(raw, secret), secret).toBe(false);
    }
  });
});
