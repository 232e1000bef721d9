import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, testEngines, type TestDb } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { eventually, startServerProcess, type ServerProcess } from '../../test/support/server-process.ts';
import { startRpcGate, type RpcGate } from '../../test/support/rpc-gate.ts';
import { addressForPublicKey, decodeAddress } from '../bitcoin/address.ts';
import { Sessions } from '../dashboard/sessions.ts';
import { associate } from '../dashboard/accounts.ts';
import type { Db } from '../db/database.ts';

const payee = () => addressForPublicKey(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), 'p2wpkh', 'regtest');

describe.each(testEngines())('refunds across a SIGKILL of the server on %s', (engine) => {
  let node: RegtestNode;
  let gate: RpcGate;
  let testDb: TestDb;
  let db: Db;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    node = await startRegtestNode();
    gate = await startRpcGate(node.rpcUrl);
    testDb = await createTestDb(engine);
    await testDb.db.close();
    env = {
      ...testDb.env,
      SATGATE_DATA_DIR: testDb.env.SATGATE_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'satgate-refund-restart-')),
      SATGATE_TEST_RPC_URL: gate.url,
      SATGATE_TEST_NETWORK: 'regtest',
      SATGATE_RATES_FILE: writeRatesFile(),
      SATGATE_POLL_MS: '100',
      SATGATE_FALLBACK_FEE_RATE: '2',
    };
  }, 120_000);

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await db?.close().catch(() => {});
    await gate?.close();
    await testDb?.dispose();
    await node?.stop();
  });

  const call = async (method: string, path: string, body?: unknown, token?: string) =>
    (await fetch(`${server!.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })).json() as Promise<Record<string, any>>;

  it('refunds stored but not broadcast when the server dies are each sent exactly once after restart', async () => {
    server = await startServerProcess(env);
    const { api_id } = await call('POST', '/add_pub', { pub: 'new_wallet', currency: 'testBTC' });
    // A server just started on a loaded machine may not hold a rate yet: set_addr then answers 998 (and only that).
    const setAddr = () =>
      eventually(
        async () => {
          const answer = await call('POST', '/set_addr', { api_id });
          if (answer.return === '0') return answer.addr as string;
          if (answer.return !== '998') throw new Error(`set_addr failed: ${JSON.stringify(answer)}`);
          return undefined;
        },
        20_000,
        'set_addr to issue an address',
      );
    const addrs = [await setAddr(), await setAddr()];
    const paid = await node.payMany(addrs.map((a) => ({ script: decodeAddress(a).script, amount: 3_000_000n })));
    await node.mine(1);
    await eventually(async () => ((await call('GET', `/balance/${addrs[1]}`)).balance.confirmed === '0.03' ? true : undefined), 20_000, 'the payment to be seen');

    db = testDb.reopen();
    const wallet = await db.kysely.selectFrom('wallets').selectAll().where('api_id', '=', api_id).executeTakeFirstOrThrow();
    const token = await db.kysely.transaction().execute(async (trx) => {
      const now = Date.now();
      const p = await trx.insertInto('profiles').values({ email: 'kill@example.test', firstname: null, lastname: null, mobile: null, country: null, created_at: BigInt(now), updated_at: BigInt(now) }).returning('id').executeTakeFirstOrThrow();
      await associate(trx, p.id, wallet.id, 'operator', now);
      return (await new Sessions(db, Date.now).open(trx, p.id, 7200, null)).token;
    });

    const forms: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await call('POST', '/refund_request', { auth_token: token, tx_id: paid.txid, refund_amount: `0.00${20 + i}` });
      expect(r.return).toBe('0');
      forms.push(r.refund.refund_form_token);
    }
    // The node refuses every broadcast: refunds are scheduled, and those the two coins can pay are signed and
    // stored (the change of an unbroadcast spend is not spendable yet); none is sent.
    gate.refuse.add('sendrawtransaction');
    const addresses = forms.map(() => payee());
    const answers = await Promise.all(forms.map((f, i) => call('POST', '/set_refund_addr', { refund_form_token: f, refund_addr: addresses[i] })));
    expect(answers.map((a) => a.refund?.status)).toEqual(Array(20).fill('Scheduled'));
    const stored = await db.kysely.selectFrom('refunds').select(['spend_id', 'state']).where('address', 'in', addresses).execute();
    expect(stored.every((r) => r.state === 'scheduled')).toBe(true);
    expect(stored.some((r) => r.spend_id !== null)).toBe(true);
    const spends = await db.kysely.selectFrom('spends').select('status').execute();
    expect(spends.length).toBeGreaterThan(0);
    expect(spends.every((s) => s.status === 'signed')).toBe(true);
    expect((await node.rpc.getRawMempool()).length).toBe(0);

    server.child.kill('SIGKILL');
    await server.exited;
    gate.refuse.clear();
    server = await startServerProcess(env);

    await eventually(
      async () => {
        const states = await db.kysely.selectFrom('refunds').select('state').where('address', 'in', addresses).execute();
        return states.every((s) => s.state === 'processing') ? true : undefined;
      },
      30_000,
      'every refund to be broadcast after the restart',
    );
    await node.mine(1);
    await eventually(
      async () => {
        const states = await db.kysely.selectFrom('refunds').select('state').where('address', 'in', addresses).execute();
        return states.every((s) => s.state === 'confirmed') ? true : undefined;
      },
      30_000,
      'every refund to confirm',
    );
    const listed = await call('GET', '/refunds', undefined, token);
    expect(listed.refunds.filter((r: { confirmations: number }) => r.confirmations === 1)).toHaveLength(20);

    // What the chain holds: every refund address paid exactly once, of exactly its amount; no coin spent twice.
    const tip = await node.rpc.getBestBlockHash();
    const block = await node.rpc.call<{ tx: string[] }>('getblock', [tip, 1]);
    const outputs: { script: string; amount: bigint }[] = [];
    const inputs: string[] = [];
    for (const txid of block.tx.slice(1)) {
      const tx = Transaction.fromRaw((await node.rpc.getRawTransaction(txid))!, { allowUnknownOutputs: true });
      for (let i = 0; i < tx.inputsLength; i++) inputs.push(`${Buffer.from(tx.getInput(i).txid!).toString('hex')}:${tx.getInput(i).index}`);
      for (let i = 0; i < tx.outputsLength; i++) outputs.push({ script: Buffer.from(tx.getOutput(i).script!).toString('hex'), amount: tx.getOutput(i).amount! });
    }
    expect(new Set(inputs).size).toBe(inputs.length);
    const refunds = await db.kysely.selectFrom('refunds').select(['script_hex', 'amount_sats']).where('address', 'in', addresses).execute();
    for (const r of refunds) expect(outputs.filter((o) => o.script === r.script_hex).map((o) => o.amount)).toEqual([r.amount_sats]);
    expect((await node.rpc.getRawMempool()).length).toBe(0);
  }, 180_000);
});
