import { describe, it, expect, beforeAll, afterAll, beforeEach } from 'vitest';
import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RpcClient, RpcError, RpcUnavailableError, btcJsonToSats } from './rpc-client.ts';

type Handler = (req: { method: string; params: unknown[]; auth: string | undefined }, res: ServerResponse) => void;

// A scripted fake node: each test sets how it answers.
let server: Server;
let base: string;
let handler: Handler;
let calls: { method: string; auth: string | undefined }[] = [];

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const { method, params } = JSON.parse(data) as { method: string; params: unknown[] };
      calls.push({ method, auth: req.headers.authorization });
      handler({ method, params, auth: req.headers.authorization }, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  base = `127.0.0.1:${addr.port}/`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  calls = [];
});

const fast = { retries: 3, retryDelayMs: 5, timeoutMs: 500 };

describe('RpcClient', () => {
  it('sends basic auth from the URL userinfo and returns the result', async () => {
    handler = (req, res) => reply(res, 200, { result: 'abc', error: null, id: 1 });
    const rpc = new RpcClient({ url: `http://al%40ice:p%3Ass@${base}`, ...fast });
    expect(await rpc.getBestBlockHash()).toBe('abc');
    expect(calls[0]!.auth).toBe('Basic ' + Buffer.from('al@ice:p:ss').toString('base64'));
    expect(rpc.url).not.toContain('p%3Ass');
  });

  it('reads the cookie file and reads it again after the node rejects it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rpc-cookie-'));
    const cookie = join(dir, '.cookie');
    await writeFile(cookie, '__cookie__:old\n');
    const rpc = new RpcClient({ url: `http://${base}`, cookieFile: cookie, ...fast });
    const good = () => 'Basic ' + Buffer.from('__cookie__:new').toString('base64');
    handler = (req, res) => (req.auth === good() ? reply(res, 200, { result: 7, error: null }) : reply(res, 401, ''));
    await expect(rpc.call('getblockcount')).rejects.toBeInstanceOf(RpcUnavailableError);
    await writeFile(cookie, '__cookie__:new\n');
    expect(await rpc.call('getblockcount')).toBe(7);
    await rm(dir, { recursive: true });
  });

  it('raises RpcError with the node code and does not retry it, even under HTTP 500 as Core sends', async () => {
    handler = (req, res) => reply(res, 500, { result: null, error: { code: -5, message: 'Block not found' }, id: 1 });
    const rpc = new RpcClient({ url: `http://u:secretpw@${base}`, ...fast });
    const err = await rpc.getRawBlock('00'.repeat(32)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe(-5);
    expect((err as RpcError).message).toContain('Block not found');
    expect(calls).toHaveLength(1);
  });

  it('retries HTTP 5xx without a JSON-RPC error and then succeeds', async () => {
    let n = 0;
    handler = (req, res) => (++n < 3 ? reply(res, 503, 'busy') : reply(res, 200, { result: ['a', 'b'], error: null }));
    const rpc = new RpcClient({ url: `http://${base}`, ...fast });
    expect(await rpc.getRawMempool()).toEqual(['a', 'b']);
    expect(calls).toHaveLength(3);
  });

  it('retries while the node warms up (code -28)', async () => {
    let n = 0;
    handler = (req, res) =>
      ++n < 2 ? reply(res, 500, { result: null, error: { code: -28, message: 'Loading block index' } }) : reply(res, 200, { result: 5, error: null });
    const rpc = new RpcClient({ url: `http://${base}`, ...fast });
    expect(await rpc.call('getblockcount')).toBe(5);
  });

  it('gives up with RpcUnavailableError after the retries, never showing the password', async () => {
    handler = (req, res) => reply(res, 502, 'bad gateway');
    const rpc = new RpcClient({ url: `http://user:hunter2@${base}`, ...fast, retries: 2 });
    const err = await rpc.getBestBlockHash().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect((err as RpcUnavailableError).status).toBe(502);
    expect(calls).toHaveLength(3);
    expect(String(err)).not.toContain('hunter2');
  });

  it('times out a node that does not answer and reports a refused connection', async () => {
    handler = () => undefined;
    const slow = new RpcClient({ url: `http://${base}`, timeoutMs: 50, retries: 1, retryDelayMs: 5 });
    await expect(slow.getBestBlockHash()).rejects.toThrow(/timed out/);
    expect(calls).toHaveLength(2);
    const spare = createServer();
    await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r));
    const port = (spare.address() as { port: number }).port;
    await new Promise((r) => spare.close(r));
    const closed = new RpcClient({ url: `http://user:hunter2@127.0.0.1:${port}/`, timeoutMs: 200, retries: 1, retryDelayMs: 5 });
    const err = await closed.getBestBlockHash().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcUnavailableError);
    expect(String(err)).toMatch(/ECONNREFUSED/);
    expect(String(err)).not.toContain('hunter2');
  });

  it('answers null for an unknown transaction from Core (-5) and from bcoin (-1)', async () => {
    const rpc = new RpcClient({ url: `http://${base}`, ...fast });
    handler = (req, res) => reply(res, 500, { result: null, error: { code: -5, message: 'No such mempool or blockchain transaction.' } });
    expect(await rpc.getRawTransaction('11'.repeat(32))).toBeNull();
    handler = (req, res) => reply(res, 200, { result: null, error: { code: -1, message: 'Transaction not found.' } });
    expect(await rpc.getRawTransaction('11'.repeat(32))).toBeNull();
    handler = (req, res) => reply(res, 200, { result: '0100', error: null });
    expect(Array.from((await rpc.getRawTransaction('11'.repeat(32)))!)).toEqual([1, 0]);
    handler = (req, res) => reply(res, 200, { result: '01zz', error: null });
    await expect(rpc.getRawTransaction('11'.repeat(32))).rejects.toThrow(/malformed hex/);
  });

  it('converts fee estimates to whole sat/vB and falls back when the node has none', async () => {
    const rpc = new RpcClient({ url: `http://${base}`, ...fast, fallbackFeeRate: 9n });
    const answers: unknown[] = [
      { feerate: 0.00012345, blocks: 2 },
      { fee: 0.00002, blocks: 2 },
      { feerate: 0.00001, blocks: 2 },
      { errors: ['Insufficient data or no feerate found'], blocks: 0 },
      { fee: -1, blocks: 2 },
    ];
    handler = (req, res) => reply(res, 200, { result: answers.shift(), error: null });
    expect(await rpc.estimateSmartFee(2)).toBe(13n);
    expect(await rpc.estimateSmartFee(2)).toBe(2n);
    expect(await rpc.estimateSmartFee(2)).toBe(1n);
    expect(await rpc.estimateSmartFee(2)).toBe(9n);
    expect(await rpc.estimateSmartFee(2)).toBe(9n);
  });

  it('normalises a bcoin block header (numeric bits, null previous hash)', async () => {
    handler = (req, res) =>
      reply(res, 200, {
        result: { hash: 'aa', confirmations: 1, height: 0, version: 1, merkleroot: 'bb', time: 5, mediantime: 5, bits: 545259519, previousblockhash: null, nextblockhash: null },
        error: null,
      });
    const rpc = new RpcClient({ url: `http://${base}`, ...fast });
    const h = await rpc.getBlockHeader('aa');
    expect(h.bits).toBe('207fffff');
    expect(h).not.toHaveProperty('previousblockhash');
  });
});

describe('btcJsonToSats', () => {
  it('reads JSON BTC numbers exactly, exponent forms included', () => {
    expect(btcJsonToSats(0.00012345)).toBe(12345n);
    expect(btcJsonToSats(1e-7)).toBe(10n);
    expect(btcJsonToSats(21000000)).toBe(2_100_000_000_000_000n);
    expect(btcJsonToSats(0.1)).toBe(10_000_000n);
    expect(btcJsonToSats(1.5e-9)).toBe(1n);
  });
});
