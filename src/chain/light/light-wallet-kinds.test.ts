// Light mode on multisig and taproot wallets: the order addresses of a 2-of-3 P2WSH sortedmulti wallet and a BIP86
// taproot wallet are watched through the Electrum test server and the Esplora test double in front of a real bcoin
// regtest node (Electrum names them by the script hash of a 34-byte witness program, Esplora by a bech32/bech32m
// address), and a payment to each is seen, then confirmed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSource, type RunningSource } from '../../../test/support/chain-sources.ts';
import { startRegtestNode, type RegtestNode } from '../../../test/support/regtest-node.ts';
import { createTestApp, type TestApp } from '../../../test/support/test-app.ts';
import { testEngines } from '../../../test/support/test-db.ts';
import { writeRatesFile } from '../../../test/support/rates-file.ts';
import { cosigner } from '../../../test/support/cosigner-keys.ts';
import { decodeAddress } from '../../bitcoin/address.ts';

let node: RegtestNode;
beforeAll(async () => {
  node = await startRegtestNode();
});
afterAll(async () => {
  await node?.stop();
});

const cases = testEngines().flatMap((engine) => (['Electrum', 'Esplora'] as const).map((source) => [engine, source] as const));

describe.each(cases)('multisig and taproot order addresses on %s, watched through %s', (engine, sourceName) => {
  let source: RunningSource;
  let t: TestApp;

  beforeAll(async () => {
    source = await startSource(sourceName, node);
    t = await createTestApp(engine, {
      env: { SATGATE_RATES_FILE: writeRatesFile() },
      chains: { test: { ...source.endpoint, network: 'regtest' } },
      start: true,
    });
    await t.ctx.chains.pollNow();
  });
  afterAll(async () => {
    await t?.close();
    await source?.stop();
  });

  async function orderAddressOf(pub: string): Promise<string> {
    const added = await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub, currency: 'testBTC' } });
    expect(added.json(), added.body).toMatchObject({ return: '0' });
    const res = await t.app.inject({ method: 'POST', url: '/set_addr', payload: { api_id: added.json().api_id, expiration: 3600 } });
    expect(res.json(), res.body).toMatchObject({ return: '0' });
    return res.json().addr as string;
  }

  async function balanceOf(addr: string) {
    return (await t.app.inject({ method: 'GET', url: `/balance/${addr}` })).json().balance;
  }

  async function until(addr: string, want: { confirmed: string; unconfirmed: string }, ms = 30_000): Promise<void> {
    const end = Date.now() + ms;
    for (;;) {
      await t.ctx.chains.pollNow();
      const got = await balanceOf(addr);
      if (got.confirmed === want.confirmed && got.unconfirmed === want.unconfirmed) return;
      if (Date.now() > end) expect(got).toEqual(want);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('a payment to a 2-of-3 wsh(sortedmulti) order address is seen and then confirmed', async () => {
    const [a, b, c] = [cosigner(), cosigner(), cosigner()];
    const addr = await orderAddressOf(`wsh(sortedmulti(2,${a.withOrigin}/<0;1>/*,${b.withOrigin}/<0;1>/*,${c.withOrigin}/<0;1>/*))`);
    expect(addr).toMatch(/^bcrt1q.{58}$/);
    await node.pay(decodeAddress(addr).script, 50_000n);
    await until(addr, { confirmed: '0', unconfirmed: '0.0005' });
    await node.mine(1);
    await until(addr, { confirmed: '0.0005', unconfirmed: '0' });
  }, 60_000);

  it('a payment to a tr() order address is seen and then confirmed', async () => {
    const account = cosigner(true, "m/86'/1'/0'");
    const addr = await orderAddressOf(`tr(${account.withOrigin}/0/*)`);
    expect(addr).toMatch(/^bcrt1p/);
    // bcoin 1.0.2 takes a payment to a witness v1 output into its mempool (only spends of one it refuses).
    await node.pay(decodeAddress(addr).script, 40_000n);
    await until(addr, { confirmed: '0', unconfirmed: '0.0004' });
    await node.mine(1);
    await until(addr, { confirmed: '0.0004', unconfirmed: '0' });
  }, 60_000);
});
