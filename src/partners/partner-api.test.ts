// Partner operations over the real app: keys, merchant wallet creation (idempotent), status by body or query,
// KYC uploads with their refusals, and that wrong keys and other partners' merchants look like "not found".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { Writable } from 'node:stream';
import { hashToken } from '../security/tokens.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1');
const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
const REGTEST_ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

describe.each(testEngines())('partner operations on %s', (engine) => {
  let t: TestApp;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile() }, start: true });
    const now = Date.now();
    keyA = (await t.ctx.partners.keys.create({ name: 'Market A', test: true, settlementAddress: REGTEST_ADDRESS }, now)).partnerAuthKey;
    keyB = (await t.ctx.partners.keys.create({ name: 'Market B', test: true, settlementAddress: REGTEST_ADDRESS }, now)).partnerAuthKey;
  });
  afterAll(async () => {
    await t?.close();
  });

  const createBody = (key: string, overrides: Record<string, unknown> = {}) => ({
    partner_auth_key: key,
    merchant_name: 'Café Nord',
    partner_merchant_id: 'm-1001',
    contact: { email: 'owner@cafe-nord.example', phone: '+4930123456' },
    bank_info: { iban: 'DE89370400440532013000', holder: 'Café Nord GmbH' },
    metadata: { segment: 'food' },
    local_currency: 'eur',
    ...overrides,
  });
  const create = (body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/partner_merchant_wallet', payload: body });

  it('creates a pending_kyc sandbox wallet with keys shown once, and answers the same wallet without keys the second time', async () => {
    const first = await create(createBody(keyA, { partner_merchant_id: 'm-idem' }));
    expect(first.statusCode).toBe(200);
    const a = first.json();
    expect(a).toMatchObject({ result: '0', status: 'OK', partner_merchant_id: 'm-idem', wallet_status: 'pending_kyc' });
    expect(a.merchant_api_id).toMatch(/^test_[0-9a-f]{32}$/);
    expect(a.merchant_auth_key).toMatch(/^mak_/);
    expect(a.withdrawal_auth_key).toMatch(/^wak_/);
    const again = (await create(createBody(keyA, { partner_merchant_id: 'm-idem', merchant_name: 'Other' }))).json();
    expect(again).toMatchObject({ result: '0', merchant_api_id: a.merchant_api_id, merchant_auth_key: '', withdrawal_auth_key: '' });
    expect(again.status).toMatch(/already has a wallet.*not shown again/);
    const wallet = await t.ctx.db.kysely.selectFrom('wallets').selectAll().where('api_id', '=', a.merchant_api_id).executeTakeFirstOrThrow();
    expect(wallet).toMatchObject({ mode: 'test', network: 'regtest', script_type: 'p2wpkh', local_currency: 'eur' });
    expect(wallet.seed_sealed).toMatch(/^v1:/);
    const pw = await t.ctx.db.kysely.selectFrom('partner_wallets').selectAll().where('wallet_id', '=', wallet.id).executeTakeFirstOrThrow();
    expect(pw.merchant_key_hash).toBe(hashToken(a.merchant_auth_key));
    const stored = JSON.stringify(pw, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    for (const secret of [a.merchant_auth_key, a.withdrawal_auth_key, 'cafe-nord', '+4930123456', 'DE89', 'food']) expect(stored).not.toContain(secret);
  });

  it('the same partner_merchant_id under another partner is another wallet', async () => {
    const a = (await create(createBody(keyA, { partner_merchant_id: 'shared-id' }))).json();
    const b = (await create(createBody(keyB, { partner_merchant_id: 'shared-id' }))).json();
    expect(b.merchant_auth_key).toMatch(/^mak_/);
    expect(b.merchant_api_id).not.toBe(a.merchant_api_id);
  });

  it('concurrent creates with one partner_merchant_id make one wallet', async () => {
    const answers = (await Promise.all([1, 2, 3].map(() => create(createBody(keyA, { partner_merchant_id: 'm-race' }))))).map((r) => r.json());
    expect(new Set(answers.map((a) => a.merchant_api_id)).size).toBe(1);
    expect(answers.filter((a) => a.merchant_auth_key !== '').length).toBe(1);
  });

  it('refuses bad contact, bank_info, currency and types with clear statuses, creating nothing', async () => {
    const before = await t.ctx.db.kysely.selectFrom('partner_wallets').select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow();
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ contact: { email: 'nope', phone: '+4930123456' } }, '308', /contact.email/],
      [{ contact: { email: 'a@b.example', phone: '030 123456' } }, '201', /E\.164/],
      [{ contact: { email: 'a@b.example' } }, '201', /E\.164/],
      [{ bank_info: 'DE89' }, '201', /bank_info must be a JSON object/],
      [{ bank_info: undefined }, '201', /bank_info is required/],
      [{ local_currency: 'XYZ' }, '103', /not supported/],
      [{ merchant_name: 42 }, '201', /merchant_name must be a string/],
      [{ partner_merchant_id: ' padded' }, '201', /partner_merchant_id/],
      [{ surprise: 1 }, '201', /unknown field\(s\) surprise/],
    ];
    for (const [override, code, status] of cases) {
      const res = await create(createBody(keyA, { partner_merchant_id: 'm-bad', ...override }));
      expect(res.statusCode, JSON.stringify(override)).toBe(400);
      expect(res.json().result).toBe(code);
      expect(res.json().status).toMatch(status);
    }
    const after = await t.ctx.db.kysely.selectFrom('partner_wallets').select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('refuses a missing, wrong or revoked partner key', async () => {
    const missing = await create({ ...createBody(keyA), partner_auth_key: undefined });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ result: '302' });
    const wrong = await create(createBody(`${keyA.slice(0, -2)}xx`));
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ result: '303' });
    const c = await t.ctx.partners.keys.create({ name: 'Gone', test: true, settlementAddress: REGTEST_ADDRESS }, Date.now());
    await t.ctx.partners.keys.revoke(String(c.partner.id), Date.now());
    expect((await create(createBody(c.partnerAuthKey))).json()).toMatchObject({ result: '303' });
    // The key also works in the Authorization header.
    const viaHeader = await t.app.inject({
      method: 'POST',
      url: '/partner_merchant_wallet',
      headers: { authorization: `Bearer ${keyA}` },
      payload: { ...createBody(keyA, { partner_merchant_id: 'm-header' }), partner_auth_key: undefined },
    });
    expect(viaHeader.json()).toMatchObject({ result: '0', wallet_status: 'pending_kyc' });
  });

  it('status by JSON body on GET or by query; a wrong merchant key, an unknown ID and another partner’s merchant answer alike', async () => {
    const w = (await create(createBody(keyA, { partner_merchant_id: 'm-status' }))).json();
    const byBody = await t.app.inject({
      method: 'GET',
      url: '/partner_merchant_wallet',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ partner_auth_key: keyA, merchant_api_id: w.merchant_api_id, merchant_auth_key: w.merchant_auth_key }),
    });
    expect(byBody.json()).toEqual({ result: '0', status: 'OK', partner_merchant_id: 'm-status', merchant_api_id: w.merchant_api_id, wallet_status: 'pending_kyc' });
    const q = new URLSearchParams({ partner_auth_key: keyA, merchant_api_id: w.merchant_api_id, merchant_auth_key: w.merchant_auth_key });
    expect((await t.app.inject({ method: 'GET', url: `/partner_merchant_wallet?${q}` })).json()).toEqual(byBody.json());

    const refusal = async (partnerKey: string, apiId: string, merchantKey: string) => {
      const p = new URLSearchParams({ partner_auth_key: partnerKey, merchant_api_id: apiId, merchant_auth_key: merchantKey });
      const res = await t.app.inject({ method: 'GET', url: `/partner_merchant_wallet?${p}` });
      return { code: res.statusCode, body: res.json() };
    };
    const wrongKey = await refusal(keyA, w.merchant_api_id, `${w.merchant_auth_key.slice(0, -2)}zz`);
    const unknown = await refusal(keyA, 'test_00000000000000000000000000000000', w.merchant_auth_key);
    const otherPartner = await refusal(keyB, w.merchant_api_id, w.merchant_auth_key);
    expect(wrongKey).toEqual({ code: 401, body: { result: '303', status: 'Token invalid: merchant_api_id and merchant_auth_key do not match' } });
    expect(unknown).toEqual(wrongKey);
    expect(otherPartner).toEqual(wrongKey);
    // The withdrawal key is not a merchant key.
    expect(await refusal(keyA, w.merchant_api_id, w.withdrawal_auth_key)).toEqual(wrongKey);
  });

  it('OpenAPI at /docs documents the partner and withdrawal operations', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(spec.paths['/partner_merchant_wallet']!).sort()).toEqual(['get', 'post']);
    expect(spec.paths['/partner_merchant_kyc']).toHaveProperty('post');
    expect(spec.paths['/withdrawal_quote']).toHaveProperty('get');
    expect(Object.keys(spec.paths['/withdrawal']!).sort()).toEqual(['get', 'post']);
  });

  it('request logs never contain partner, merchant or withdrawal keys sent in the query or a header', async () => {
    const chunks: string[] = [];
    const stream = new Writable({ write: (c, _e, done) => (chunks.push(String(c)), done()) });
    const logged = await createTestApp(engine, { env: { SATGATE_RATES_FILE: writeRatesFile(), LOG_LEVEL: 'trace' }, logStream: stream });
    try {
      const q = new URLSearchParams({ partner_auth_key: keyA, merchant_api_id: 'test_x', merchant_auth_key: 'mak_secret-merchant-key' });
      await logged.app.inject({ method: 'GET', url: `/partner_merchant_wallet?${q}` });
      await logged.app.inject({ method: 'GET', url: '/withdrawal_quote?merchant_api_id=test_x&withdrawal_auth_key=wak_secret-withdrawal-key&amount=1' });
      await logged.app.inject({ method: 'POST', url: '/partner_merchant_wallet', headers: { authorization: `Bearer ${keyA}` }, payload: {} });
    } finally {
      await logged.close();
    }
    const text = chunks.join('');
    expect(text).toContain('/partner_merchant_wallet');
    for (const secret of [keyA, 'mak_secret-merchant-key', 'wak_secret-withdrawal-key']) expect(text).not.toContain(secret);
  });

  describe('KYC uploads', () => {
    let w: { merchant_api_id: string; merchant_auth_key: string };
    beforeAll(async () => {
      w = (await create(createBody(keyA, { partner_merchant_id: 'm-kyc' }))).json();
    });
    const upload = (fields: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: '/partner_merchant_kyc',
        payload: { partner_auth_key: keyA, merchant_api_id: w.merchant_api_id, merchant_auth_key: w.merchant_auth_key, ...fields },
      });
    const count = async () =>
      Number((await t.ctx.db.kysely.selectFrom('kyc_documents').select((eb) => eb.fn.countAll<bigint>().as('n')).executeTakeFirstOrThrow()).n);

    it('stores a PNG and a PDF sealed, and refuses a second upload with the same doc_id', async () => {
      const png = await upload({ doc_id: 'passport-front', description: 'passport, front', base64: dataUrl('image/png', PNG), metadata: { country: 'DE' } });
      expect(png.json()).toEqual({ result: '0', status: 'OK', merchant_api_id: w.merchant_api_id, doc_id: 'passport-front' });
      expect((await upload({ doc_id: 'registry', description: 'company registry', base64: dataUrl('application/pdf', PDF) })).json().result).toBe('0');
      const dup = await upload({ doc_id: 'registry', base64: dataUrl('application/pdf', PDF) });
      expect(dup.statusCode).toBe(400);
      expect(dup.json().status).toMatch(/already uploaded/);
      const rows = await t.ctx.db.kysely.selectFrom('kyc_documents').selectAll().execute();
      const stored = JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
      expect(stored).not.toContain(PNG.toString('base64'));
      expect(stored).not.toContain('passport, front');
      const shown = await t.ctx.partners.kyc.show(w.merchant_api_id, 'passport-front');
      expect(shown.bytes.equals(PNG)).toBe(true);
      expect(shown.metadata).toEqual({ country: 'DE' });
    });

    it('refuses bad base64, a wrong declared type, an executable renamed .pdf and an oversized document, storing nothing', async () => {
      const before = await count();
      const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0x90)]);
      const big = Buffer.alloc(10 * 1024 * 1024 + 1);
      PDF.copy(big);
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ doc_id: 'bad-b64', base64: 'data:application/pdf;base64,JVBER!!0xLjQ=' }, /valid base64/],
        [{ doc_id: 'wrong-type', base64: dataUrl('application/pdf', PNG) }, /declared type application\/pdf does not match the content, which is image\/png/],
        [{ doc_id: 'invoice.pdf', base64: dataUrl('application/pdf', exe) }, /Windows executable/],
        [{ doc_id: 'huge', base64: dataUrl('application/pdf', big) }, /larger than 10 MiB/],
        [{ doc_id: 'not-url', base64: PDF.toString('base64') }, /data URL/],
        [{ doc_id: 'bad id!', base64: dataUrl('image/png', PNG) }, /doc_id/],
        [{ doc_id: 'num', base64: 12 }, /base64 is required/],
      ];
      for (const [fields, status] of cases) {
        const res = await upload(fields);
        expect(res.statusCode, String(fields.doc_id)).toBe(400);
        expect(res.json().result).toBe('201');
        expect(res.json().status).toMatch(status);
      }
      expect(await count()).toBe(before);
    });

    it('refuses uploads with another partner’s key or a wrong merchant key', async () => {
      const other = await t.app.inject({
        method: 'POST',
        url: '/partner_merchant_kyc',
        payload: { partner_auth_key: keyB, merchant_api_id: w.merchant_api_id, merchant_auth_key: w.merchant_auth_key, doc_id: 'x', base64: dataUrl('image/png', PNG) },
      });
      expect(other.statusCode).toBe(401);
      expect(other.json().result).toBe('303');
    });
  });
});
