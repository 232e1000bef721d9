import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, freePort, runCli, startServerProcess, type ServerProcess } from '../../test/support/server-process.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';

// Development mode: `satgate start` with no node configured runs its own bcoin chain, which must keep its mempool.
describe('development mode', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'satgate-dev-'));
    // Same port across restarts: the dev chain's payer and the shop talk to one address.
    env = { SATGATE_DATA_DIR: dataDir, SATGATE_POLL_MS: '100', PORT: String(await freePort()) };
  });
  afterAll(() => {
    server?.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const get = async (path: string) => (await fetch(`${server!.url}${path}`)).json() as Promise<Record<string, any>>;
  const post = async (path: string, body: unknown) =>
    (await fetch(`${server!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<
      Record<string, any>
    >;
  /** Resolves once the watcher has polled the chain `n` more times (it would have withdrawn a vanished tx by then). */
  const polls = async (n: number) => {
    const start = (await get('/health')).chain_test.polls as number;
    await eventually(async () => ((await get('/health')).chain_test.polls >= start + n ? true : undefined), 30_000, `${n} polls`);
  };

  it('an unconfirmed payment survives a crash of the server: still unconfirmed after the restart, then confirms', async () => {
    server = await startServerProcess(env, 120_000);
    const pub = generateNewWallet(true).accountKey;
    const { api_id } = await post('/add_pub', { pub });
    const { addr } = await post('/set_addr', { api_id });
    const paid = await post('/dev/pay', { address: addr, btc: '0.001' });
    expect(paid.return).toBe('0');
    await eventually(async () => ((await get(`/balance/${addr}`)).balance.unconfirmed === '0.001' ? true : undefined), 20_000, 'unconfirmed');

    server.child.kill('SIGKILL');
    await server.exited;
    server = await startServerProcess(env, 120_000);
    await polls(5);
    expect((await get(`/balance/${addr}`)).balance).toEqual({ confirmed: '0', unconfirmed: '0.001' });
    const txs = (await get(`/tx/${pub}`)).tx as Array<{ txid: string; confirmation: number | null }>;
    expect(txs.map((t) => t.txid)).toEqual([paid.txid]);

    // The dev payer knows its own unconfirmed spend after the restart: a second payment does not conflict with it.
    const again = await post('/dev/pay', { address: addr, btc: '0.0005' });
    expect(again.return, JSON.stringify(again)).toBe('0');
    expect((await post('/dev/mine', { blocks: 1 })).return).toBe('0');
    await eventually(async () => ((await get(`/balance/${addr}`)).balance.confirmed === '0.0015' ? true : undefined), 20_000, 'confirmed');
    expect((await get(`/balance/${addr}`)).balance.unconfirmed).toBe('0');

    // More than the payer holds: the answer and the CLI say why and what to do, never "System error".
    const tooMuch = await post('/dev/pay', { address: addr, btc: '100000' });
    expect(tooMuch.return).toBe('201');
    expect(tooMuch.status).toMatch(/the built-in payer has [\d.]+ BTC spendable, needs [\d.]+ BTC/);
    expect(tooMuch.status).toMatch(/satgate dev mine/);
    const cli = await runCli(['dev', 'pay', addr, '100000'], { SATGATE_DATA_DIR: dataDir, PORT: env.PORT! });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toMatch(/the built-in payer has [\d.]+ BTC spendable/);
    expect(cli.stderr).not.toContain('System error');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;
  }, 300_000);
});
