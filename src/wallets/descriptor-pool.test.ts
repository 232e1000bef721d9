import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { cosigner } from '../../test/support/cosigner-keys.ts';
import { keyOf } from '../bitcoin/wallet-key.ts';
import { AddressIssuer } from './address-issuer.ts';
import { AddressPool } from './address-pool.ts';
import { DerivationWorker } from './derivation-worker.ts';
import { WalletRepository, type WalletRow } from './wallet-repository.ts';

const silent = pino({ level: 'silent' });

describe.each(testEngines())('the address pool and derivation thread of descriptor wallets on %s', (engine) => {
  let t: TestDb;
  let thread: DerivationWorker;
  beforeEach(async () => {
    t = await createTestDb(engine);
    thread = new DerivationWorker();
  });
  afterEach(async () => {
    await thread.close();
    await t.dispose();
  });

  async function insertWallet(descriptor: string, kind: string): Promise<WalletRow> {
    return new WalletRepository(t.db).insert({
      api_id: `test_${Math.random().toString(16).slice(2)}`,
      pub: descriptor,
      descriptor,
      mode: 'test',
      network: 'regtest',
      script_type: kind,
      wallet_type: 5n,
      local_currency: 'usd',
      notification_email: null,
      return_url: null,
      account_name: null,
      account_type: null,
      info: null,
      box_public_key: 'x',
      box_secret_sealed: 'x',
      sign_public_key: 'x',
      sign_secret_sealed: 'x',
      seed_sealed: null,
      created_at: 0n,
      updated_at: 0n,
    });
  }

  it('a multisig and a taproot wallet refill their pools on the thread with the receive addresses of their descriptors', async () => {
    const [a, b, c] = [cosigner(), cosigner(), cosigner()];
    const shapes = [
      { descriptor: keyOf({ descriptor: `sh(wsh(sortedmulti(2,${a.withOrigin}/0/*,${b.withOrigin}/0/*,${c.withOrigin}/0/*)))` }, 'regtest').describe(), kind: 'p2sh-p2wsh-multisig' },
      { descriptor: keyOf({ descriptor: `tr(${cosigner(true, "m/86'/1'/0'").withOrigin}/<0;1>/*)` }, 'regtest').describe(), kind: 'p2tr' },
    ];
    for (const shape of shapes) {
      const wallet = await insertWallet(shape.descriptor, shape.kind);
      const issuer = new AddressIssuer(t.db.engine);
      const pool = new AddressPool(t.db, () => Date.now(), silent, (w, i) => issuer.derive(w, i), thread, { target: 8, lowWater: 6, chunk: 4, maxTarget: 8 });
      issuer.usePool(pool);
      const before = thread.requested;
      await pool.refill(wallet);
      expect(thread.requested - before).toBe(8);
      const pooled = await t.db.kysely.selectFrom('address_pool').selectAll().where('wallet_id', '=', wallet.id).orderBy('derivation_index').execute();
      const key = keyOf({ descriptor: shape.descriptor }, 'regtest');
      expect(pooled.map((r) => [Number(r.derivation_index), r.address, r.script_hex, r.script_type])).toEqual(
        [0, 1, 2, 3, 4, 5, 6, 7].map((i) => [i, key.receive(i).address, Buffer.from(key.receive(i).script).toString('hex'), shape.kind]),
      );
      // Issuing claims them in order; the issuer's own derivation agrees with the thread's.
      const issued = await t.db.kysely.transaction().execute((trx) => issuer.issueForPayment(trx, wallet, Date.now()));
      expect(issued.address).toBe(key.receive(0).address);
      expect(issuer.derive(wallet, 9).address).toBe(key.receive(9).address);
      await pool.settle();
    }
  });
});
