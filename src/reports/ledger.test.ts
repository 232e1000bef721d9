import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { testEngines } from '../../test/support/test-db.ts';
import { ledgerRows } from './ledger.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../test/support/server-process.ts';

describe.each(testEngines())('reading the ledger in keyset pages on %s', (engine) => {
  let t: TestApp;
  let walletId: bigint;
  let apiId: string;

  beforeAll(async () => {
    t = await createTestApp(engine);
    apiId = (await t.app.inject({ method: 'POST', url: '/add_pub', payload: { pub: 'new_wallet', currency: 'testBTC' } })).json().api_id;
    walletId = (await t.ctx.wallets.repo.findByApiId(apiId))!.id;
    // 2,345 rows, many sharing one time, written out of time order: the pages must still give each once, in order.
    const base = Date.parse('2026-03-01T00:00:00Z');
    const values = Array.from({ length: 2345 }, (_, i) => ({
      wallet_id: walletId,
      chain: 'test',
      kind: 'receipt',
      reverses_id: null,
      reason: null,
      at: BigInt(base + ((i * 7919) % 50) * 60_000),
      txid: i.toString(16).padStart(64, '0'),
      vout: 0n,
      address: 'bcrt1qexample',
      amount_sats: BigInt(i + 1),
      fee_sats: null,
      ref_kind: null,
      ref: null,
      first_seen_at: BigInt(base),
      confirmed_height: null,
      confirmed_block_hash: null,
      confirmed_at: null,
      late: 0n,
      paid: null,
      currency: 'USD',
      rate: null,
      rate_source: null,
      rate_at: null,
      rate_estimated: 0n,
      fiat_value: null,
      locked_rate: null,
      invoiced_amount: null,
      invoiced_currency: null,
      recorded_at: BigInt(base),
    }));
    for (let i = 0; i < values.length; i += 200) await t.ctx.db.kysely.insertInto('ledger_entries').values(values.slice(i, i + 200)).execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('gives every row of the period once, oldest first, whatever the page size', async () => {
    const from = Date.parse('2026-03-01T00:00:00Z');
    const to = Date.parse('2026-03-01T00:40:00Z');
    const seen: Array<[number, bigint]> = [];
    let sum = 0n;
    for await (const { row, figures } of ledgerRows(t.ctx.db, { walletId, apiId, from, to, pageSize: 97 })) {
      seen.push([figures.at, BigInt(row.entry_id)]);
      sum += figures.amountSats;
      expect(row.amount_btc).toMatch(/^\d+\.\d{8}$/);
    }
    const all = await t.ctx.db.kysely.selectFrom('ledger_entries').select(['id', 'at', 'amount_sats']).where('at', '<', BigInt(to)).execute();
    expect(seen).toHaveLength(all.length);
    expect(new Set(seen.map(([, id]) => id)).size).toBe(all.length);
    const sorted = [...seen].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
    expect(seen).toEqual(sorted);
    expect(sum).toBe(all.reduce((s, r) => s + r.amount_sats, 0n));
  });

  it('the report command refuses a bad period, an unknown wallet and an existing file, and writes nothing', async () => {
    const env = t.testDb.env;
    const args = ['report', 'ledger', '--wallet', apiId];
    const bad = await runCli([...args, '--from', '2026-13-45x', '--to', '2026-04-01'], env);
    expect(bad).toMatchObject({ code: 2, stdout: '' });
    expect(bad.stderr).toContain('--from must be a date');
    const backwards = await runCli([...args, '--from', '2026-04-01', '--to', '2026-03-01'], env);
    expect(backwards.stderr).toContain('--to must be after --from');
    const unknown = await runCli(['report', 'ledger', '--wallet', 'test_nope', '--from', '2026-03-01', '--to', '2026-04-01'], env);
    expect(unknown).toMatchObject({ code: 2 });
    expect(unknown.stderr).toContain('no wallet');
    const file = join(mkdtempSync(join(tmpdir(), 'satgate-out-')), 'kept.csv');
    writeFileSync(file, 'keep me');
    const exists = await runCli([...args, '--from', '2026-03-01', '--to', '2026-04-01', '--out', file], env);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain('already exists');
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    const jsonl = await runCli([...args, '--from', '2026-03-01T00:00:00Z', '--to', '2026-03-01T00:01:00Z', '--format', 'jsonl'], env);
    expect(jsonl.code, jsonl.stderr).toBe(0);
    const lines = jsonl.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
    expect(lines.length).toBeGreaterThan(0);
    expect(Object.values(lines[0]!).every((v) => typeof v === 'string')).toBe(true);
    // A progress line is for a terminal only: a pipe gets nothing on stderr.
    expect(jsonl.stderr).toBe('');
  });
});
