// On Esplora with whole blocks an open order is the only thing asked between blocks, once per interval (issue 39:
// at most 240 requests an hour per order at the default 15 s). The interval is a grid: each question is due one
// interval after the last due moment, and the watcher wakes at that moment rather than at its next 1 s tick, so
// the order costs exactly one question per interval and a payer waits at most one interval. Before, an address
// was due one interval after its last answer and asked at the next tick: every interval grew by up to a tick.
// Each address has its own slots (a phase within the interval), so orders opened together are not asked together.
// Against a real bcoin regtest node behind the Esplora test server; the schedule does not depend on the engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { startEsploraTestServer, type EsploraTestServer } from '../../../test/support/esplora-test-server.ts';
import { scriptSha } from '../../../test/support/light-chain-index.ts';
import { TEST_BUDGET } from '../../../test/support/chain-sources.ts';
import { createTestDb, testEngines, type TestDb } from '../../../test/support/test-db.ts';
import { ChainService } from '../chain-service.ts';
import { WalletRepository } from '../../wallets/wallet-repository.ts';
import { registerWallet } from '../../wallets/wallet-registration.ts';
import { generateNewWallet } from '../../bitcoin/new-wallet.ts';
import { AddressIssuer } from '../../wallets/address-issuer.ts';
import { MasterKey } from '../../security/master-key.ts';
import { nextSlot } from './script-poll.ts';

const log = pino({ level: 'silent' });
const KEY = MasterKey.fromBytes(new Uint8Array(32).fill(7));
const engine = testEngines()[0]!;
const HOT_EVERY_MS = 3_000;
const POLL_MS = 1_000;

let node: RegtestNode;
let esplora: EsploraTestServer;
let testDb: TestDb;
let chains: ChainService;
beforeAll(async () => {
  node = await startRegtestNode();
  // A public server's round trip: an interval counted from the answer, asked at a 1 s tick, grew by a tick.
  esplora = await startEsploraTestServer(node, { latencyMs: 150 });
  testDb = await createTestDb(engine);
  chains = new ChainService(testDb.db, Date.now, log, POLL_MS, 2n);
  await chains.configure({ test: { esploraUrl: esplora.url, tipCacheMs: 0, budget: TEST_BUDGET, hotEveryMs: HOT_EVERY_MS, network: 'regtest' } });
  await chains.pollNow();
}, 120_000);
afterAll(async () => {
  await chains?.close();
  await esplora?.close();
  await testDb?.dispose();
  await node?.stop();
}, 30_000);

/** When each request naming this script hash reached the server (test clock, 10 ms resolution), until `count` of them. */
async function askedTimes(sha: string, count: number, timeoutMs: number): Promise<number[]> {
  const times: number[] = [];
  let seen = esplora.paths.length;
  const end = Date.now() + timeoutMs;
  while (times.length < count && Date.now() < end) {
    const paths = esplora.paths;
    for (; seen < paths.length; seen++) {
      // One question is one history request (the mempool and chain routes of one ask count once, as the first).
      if (paths[seen]!.includes(sha) && !paths[seen]!.includes('/txs/chain/')) times.push(Date.now());
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return times;
}

describe('the slots of addresses expecting money', () => {
  it('an address is next due within one interval, and once on its slot, one whole interval later', () => {
    for (let id = 1n; id <= 500n; id++) {
      const now = 1_790_000_000_000 + Number(id) * 37;
      const slot = nextSlot(id, now, 15_000);
      expect(slot).toBeGreaterThan(now);
      expect(slot - now).toBeLessThanOrEqual(15_000);
      expect(nextSlot(id, slot, 15_000)).toBe(slot + 15_000);
      expect(nextSlot(id, slot + 40, 15_000)).toBe(slot + 15_000);
    }
  });

  it('orders opened together are spread over the interval rather than asked together', () => {
    const now = 1_790_000_000_000;
    const offsets = Array.from({ length: 40 }, (_, i) => nextSlot(1000n + BigInt(i), now, 15_000) - now).sort((a, b) => a - b);
    // 40 slots in 15 s: no second of the interval holds more than a handful of them.
    const perSecond = new Map<number, number>();
    for (const o of offsets) perSecond.set(Math.floor(o / 1000), (perSecond.get(Math.floor(o / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(6);
    expect(offsets.at(-1)! - offsets[0]!).toBeGreaterThan(12_000);
  });
});

describe(`the schedule of an open order on Esplora with blocks, on ${engine}`, () => {
  it('an open order is asked once per interval on a grid, at its due moment rather than the next tick', async () => {
    const repo = new WalletRepository(testDb.db);
    const { api_id } = await registerWallet(
      { repo, masterKey: KEY, clock: Date.now, testNetwork: 'regtest', isSupportedCurrency: () => true },
      { pub: generateNewWallet(true).accountKey },
    );
    const wallet = (await repo.findByApiId(api_id))!;
    const row = await testDb.db.kysely.transaction().execute(async (trx) => {
      const r = await new AddressIssuer(engine).issueForPayment(trx, wallet, Date.now());
      await trx.updateTable('addresses').set({ reserved_until: BigInt(Date.now() + 3_600_000) }).where('id', '=', r.id).execute();
      return r;
    });
    const script = Buffer.from(row.script_hex, 'hex');
    chains.watch('test', script, { addressId: row.id, walletId: wallet.id });
    chains.start();
    const times = await askedTimes(scriptSha(script), 7, 45_000);
    expect(times.length).toBe(7);
    // The first question comes at once and the second at the address's slot, within one interval; from there on
    // one question a slot.
    expect(times[1]! - times[0]!).toBeLessThanOrEqual(HOT_EVERY_MS + 400);
    const onSlots = times.slice(1);
    const gaps = onSlots.slice(1).map((t, i) => t - onSlots[i]!);
    const mean = (onSlots.at(-1)! - onSlots[0]!) / gaps.length;
    // Exactly one interval on average (asked at the tick after one interval from the answer, it was 3.6 s), never
    // asked twice within one interval's first part.
    expect(mean).toBeGreaterThan(HOT_EVERY_MS - 100);
    expect(mean).toBeLessThan(HOT_EVERY_MS + 400);
    for (const gap of gaps) expect(gap).toBeGreaterThan(HOT_EVERY_MS / 2);
  }, 90_000);
});
