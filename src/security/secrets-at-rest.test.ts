// Nothing secret is stored in clear: after the service has made every kind of secret it knows, a dump of every
// table (and, on SQLite, the raw database, WAL and journal files) contains none of them in any usual encoding.
//
// To cover a new kind of secret (OTPs, dashboard sessions, partner keys, ...), add one entry to SECRET_MAKERS:
// it creates the secret through the real service and returns its clear values.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { createClient, tokenFor } from '../../test/support/payment-api.ts';
import { rotateWebhookSecret } from '../payments/webhook-secrets.ts';
import { lastLoginMail, login, sendOtp } from '../../test/support/dashboard.ts';

/** A secret as the service handed it out (text) or holds it (bytes), with a name for the failure message. */
interface Secret {
  name: string;
  value: string | Uint8Array;
  /** Short secrets (a 6-digit code) count only as a whole token: not inside a longer number such as a timestamp. */
  token?: boolean;
}

/** Creates one kind of secret through the real service and returns what must never be found in clear. */
type SecretMaker = (t: TestApp) => Promise<Secret[]>;

const SECRET_MAKERS: Record<string, SecretMaker> = {
  'a generated wallet (new_wallet): its seed words and payload keys': async (t) => {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC' } });
    const { api_id } = res.json() as { api_id: string };
    const row = (await t.ctx.wallets.repo.findByApiId(api_id))!;
    const mnemonic = t.masterKey.unseal(row.seed_sealed!).toString('utf8');
    expect(mnemonic.split(' ')).toHaveLength(12);
    return [
      { name: 'seed words', value: mnemonic },
      { name: 'payload box secret key', value: t.masterKey.unseal(row.box_secret_sealed) },
      { name: 'payload signing secret key', value: t.masterKey.unseal(row.sign_secret_sealed) },
    ];
  },
  'an OAuth client, its token and its wallet webhook secret, rotated': async (t) => {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC' } });
    const { api_id } = res.json() as { api_id: string };
    const client = await createClient(t.ctx, [api_id]);
    const token = await tokenFor(t.app, client);
    const wallet = (await t.ctx.wallets.repo.findByApiId(api_id))!;
    const rotated = await t.ctx.db.kysely.transaction().execute((trx) => rotateWebhookSecret(trx, t.masterKey, wallet.id, Date.now()));
    return [
      { name: 'OAuth client secret', value: client.client_secret },
      { name: 'OAuth access token', value: token },
      { name: 'webhook secret (rotated out)', value: client.webhook_secret },
      { name: 'webhook secret (current)', value: rotated },
    ];
  },
  'a dashboard login: a pending one-time password, and a session token': async (t) => {
    expect((await sendOtp(t.app, { email: 'pending@shop.example' })).json().return).toBe('0');
    const { code } = await lastLoginMail(t.ctx.db, 'pending@shop.example');
    const session = await login(t.app, t.ctx.db, 'owner@shop.example');
    return [
      { name: 'one-time password', value: code, token: true },
      { name: 'dashboard session token', value: session },
    ];
  },
};

/** Every way a secret is commonly written down: as given, hex, base64, base64url, and its raw bytes. */
function encodings(value: string | Uint8Array): Buffer[] {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
  const forms = [bytes, Buffer.from(bytes.toString('hex')), Buffer.from(bytes.toString('base64')), Buffer.from(bytes.toString('base64url'))];
  if (typeof value === 'string' && /^[0-9a-f]+$/i.test(value) && value.length % 2 === 0) forms.push(Buffer.from(value, 'hex'));
  return forms;
}

/** Every row of every table, as text (bigint as decimal, binary as hex and as its bytes). */
async function dumpTables(t: TestApp): Promise<Buffer> {
  const db = t.ctx.db.kysely;
  const tables =
    t.ctx.db.engine === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map((r) => r.name)
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)).rows.map(
          (r) => r.name,
        );
  expect(tables).toContain('wallets');
  const parts: Buffer[] = [];
  for (const table of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    for (const row of rows) {
      for (const v of Object.values(row)) {
        if (v instanceof Uint8Array) parts.push(Buffer.from(v), Buffer.from(Buffer.from(v).toString('hex')));
        else parts.push(Buffer.from(String(v)));
        parts.push(Buffer.from('\n'));
      }
    }
  }
  return Buffer.concat(parts);
}

/** The raw bytes of the SQLite database and its WAL/journal files. */
function rawDatabaseFiles(t: TestApp): Array<{ file: string; bytes: Buffer }> {
  const dir = t.testDb.env.SATGATE_DATA_DIR!;
  return readdirSync(dir)
    .filter((f) => f.startsWith('satgate.sqlite'))
    .map((f) => join(dir, f))
    .filter((f) => existsSync(f))
    .map((file) => ({ file, bytes: readFileSync(file) }));
}

describe.each(testEngines())('secrets at rest on %s', (engine) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('no secret the service made is stored in clear, in any table or database file', async () => {
    t = await createTestApp(engine);
    const secrets: Secret[] = [];
    for (const [what, make] of Object.entries(SECRET_MAKERS)) {
      const made = await make(t);
      expect(made.length, what).toBeGreaterThan(0);
      secrets.push(...made);
    }
    const places = [{ file: 'every table', bytes: await dumpTables(t) }];
    if (engine === 'sqlite') {
      const files = rawDatabaseFiles(t);
      expect(files.map((f) => f.file.split('/').pop())).toContain('satgate.sqlite');
      places.push(...files);
    }
    const found: string[] = [];
    for (const secret of secrets) {
      for (const form of encodings(secret.value)) {
        for (const place of places) {
          const hit = secret.token
            ? new RegExp(`(?<![0-9A-Za-z])${form.toString('latin1').replace(/[^0-9A-Za-z]/g, '\\$&')}(?![0-9A-Za-z])`).test(place.bytes.toString('latin1'))
            : place.bytes.includes(form);
          if (hit) found.push(`${secret.name} in ${place.file}`);
        }
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });

  it('the check finds a secret that is stored in clear (it is not blind)', async () => {
    t = await createTestApp(engine);
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC', info: 'whsec_plaintext-canary' } });
    expect(res.json().return).toBe('0');
    expect((await dumpTables(t)).includes(Buffer.from('whsec_plaintext-canary'))).toBe(true);
    if (engine === 'sqlite') expect(rawDatabaseFiles(t).some((f) => f.bytes.includes(Buffer.from('whsec_plaintext-canary')))).toBe(true);
  });
});
