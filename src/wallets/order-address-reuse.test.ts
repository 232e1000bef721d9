// Before set_addr hands out an expired order address again, a light server is asked about it fresh: a light
// watcher asks about a cold address only in its slow sweep, so a late payment may not be in the records yet.
// A node's watcher scans every block for every issued address, so once it has processed the block its records
// answer and nothing is asked. The watchers here run only while the test polls (poll() below), so what set_addr
// knows without a poll it can only have asked the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCES, startSource, type RunningSource } from '../../test/support/chain-sources.ts';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { writeRatesFile } from '../../test/support/rates-file.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { decodeAddress } from '../bitcoin/address.ts';
import { esploraScriptHash } from '../chain/light/script-hash.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

/** The grace period before an expired address is reused, as configured here (the default, 25 h, outlasts the rates file). */
const GRACE_MS = 10_000;

const cases = testEngines().flatMap((engine) => SOURCES.map((source) => [engine, source] as const));

describe.each(cases)('reusing an expired order address on %s, reading the chain through the %s', (engine, sourceName) => {
  let source: RunningSource;
  let t: TestApp;
  let now = Date.UTC(2026, 10, 21, 12, 0, 0);

  beforeAll(async () => {
    source = await startSource(sourceName, node);
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile(), SATGATE_ORDER_REUSE_GRACE: '10s' },
      clock: () => now,
      chains: { test: { ...source.endpoint, network: 'regtest' } },
      start: true,
    });
    // Rates and the rest keep running; the watchers stop, and run only in poll().
    await t.ctx.chains.stop();
    await poll();
  });
  afterAll(async () => {
    await t?.close();
    await source?.stop();
  });

  /** One poll of the watchers, which are stopped otherwise (no timer, no push). */
  async function poll(): Promise<void> {
    t.ctx.chains.start();
    await t.ctx.chains.pollNow();
    await t.ctx.chains.stop();
  }

  async function register(): Promise<string> {
    const res = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: generateNewWallet(true).accountKey } });
    return res.json().api_id as string;
  }
  async function setAddr(api_id: string, expiration: number): Promise<string> {
    const res = await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id, expiration } });
    expect(res.json().return, res.body).toBe('0');
    return res.json().addr as string;
  }
  /** How often the server was asked for this address's history so far (0 for the node: there is no server). */
  function historyQuestions(address: string): number {
    if (source.esplora) {
      const sh = esploraScriptHash(decodeAddress(address).script);
      return source.esplora.paths.filter((p) => p === `/scripthash/${sh}/txs`).length;
    }
    if (source.electrum) return source.electrum.calls.filter((c) => c === 'blockchain.scripthash.subscribe').length;
    return 0;
  }

  it('an expired address with no transactions is checked with the server and handed out again', async () => {
    const api_id = await register();
    const first = await setAddr(api_id, 1);
    now += 5_000 + GRACE_MS;
    const asked = historyQuestions(first);
    expect(await setAddr(api_id, 60)).toBe(first);
    expect(historyQuestions(first) - asked).toBe(sourceName === 'node RPC' ? 0 : 1);
  });

  it('an expired address paid after it expired is not handed out again, and the payment is then recorded', async () => {
    const api_id = await register();
    const first = await setAddr(api_id, 1);
    now += 5_000 + GRACE_MS;
    await node.pay(decodeAddress(first).script, 10_000n);
    await node.mine(1);
    // The node's watcher answers from its own records once it has processed the block; a light watcher has not
    // been asked to poll, so only a fresh question to the server can know.
    if (sourceName === 'node RPC') await poll();
    const second = await setAddr(api_id, 60);
    expect(second).not.toBe(first);
    if (sourceName !== 'node RPC') {
      // The server's word only kept the address from reuse; the balance counts it once the watcher verified it.
      expect((await t.app.inject({ method: 'GET', url: `/balance/${first}` })).json().balance).toEqual({ confirmed: '0', unconfirmed: '0' });
      await poll();
    }
    expect((await t.app.inject({ method: 'GET', url: `/balance/${first}` })).json().balance).toEqual({ confirmed: '0.0001', unconfirmed: '0' });
    // And later orders still skip it.
    now += 120_000;
    expect(await setAddr(api_id, 60)).not.toBe(first);
  });

  it.runIf(sourceName === 'Esplora')('when the server cannot be asked, a new address is issued instead of reusing an unchecked one', async () => {
    const api_id = await register();
    const first = await setAddr(api_id, 1);
    now += 5_000 + GRACE_MS;
    source.esplora!.throttle.settings = { requests: 0, windowMs: 3_600_000 };
    try {
      const second = await setAddr(api_id, 60);
      expect(second).not.toBe(first);
    } finally {
      source.esplora!.throttle.settings = null;
    }
  });
});
