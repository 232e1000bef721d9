import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startRegtestNode, type RegtestNode } from '../../test/support/regtest-node.ts';
import { createTestDb, type TestDb } from '../../test/support/test-db.ts';
import { insertReceiveAddress } from '../../test/support/watched-address.ts';
import { relayRegtest, ZmqTestPublisher } from '../../test/support/zmq-publisher.ts';
import { ChainService } from './chain-service.ts';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { subscribeZmq, zmtpCommand, zmtpGreeting, type ZmqMessage } from './zmq-subscriber.ts';
import { generateNewWallet } from '../bitcoin/new-wallet.ts';
import { parseExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { deriveReceiveAddress } from '../bitcoin/receive-address.ts';

const log = pino({ level: 'silent' });
// Far longer than the test: after its first poll the watcher polls again only when something wakes it.
const ONE_HOUR = 3_600_000;

async function until(check: () => boolean): Promise<void> {
  await expect.poll(check, { timeout: 30_000 }).toBe(true);
}

describe('ZeroMQ subscriber (ZMTP 3.0) against a publisher on a real socket', () => {
  let pub: ZmqTestPublisher;
  beforeAll(async () => {
    pub = await ZmqTestPublisher.start();
  });
  afterAll(async () => {
    await pub?.close();
  });

  it('handshakes, subscribes to its topics only, and receives multipart messages with short and long frames', async () => {
    const got: ZmqMessage[] = [];
    const sub = subscribeZmq({ url: pub.url, topics: ['rawtx', 'hashblock'], onMessage: (m) => got.push(m), log });
    try {
      await pub.subscribed('rawtx');
      await pub.subscribed('hashblock');
      const big = Buffer.alloc(70_000, 7); // over 255 bytes: an 8-byte size frame
      expect(pub.publish('hashtx', Buffer.alloc(32, 1))).toBe(0); // not subscribed: never sent
      pub.publish('rawtx', Buffer.from([1, 2, 3]));
      pub.publish('rawtx', big);
      pub.publish('hashblock', Buffer.alloc(32, 9));
      await until(() => got.length === 3);
      expect(got.map((m) => [m.topic, m.body.length, m.sequence])).toEqual([
        ['rawtx', 3, 0],
        ['rawtx', 70_000, 1],
        ['hashblock', 32, 0],
      ]);
      expect(got[1]!.body.equals(big)).toBe(true);
    } finally {
      sub.close();
    }
  });

  it('reconnects after the connection drops, subscribes again and says so', async () => {
    const got: string[] = [];
    let reconnects = 0;
    pub.resetSubscriptions();
    const sub = subscribeZmq({ url: pub.url, topics: ['hashblock'], onMessage: (m) => got.push(m.topic), onReconnect: () => reconnects++, log, retryMs: 20 });
    try {
      await pub.subscribed('hashblock');
      pub.resetSubscriptions();
      pub.dropConnections();
      await pub.subscribed('hashblock');
      await until(() => reconnects === 1);
      pub.publish('hashblock', Buffer.alloc(32));
      await until(() => got.length === 1);
    } finally {
      sub.close();
    }
  });

  it('refuses a peer that is not a publisher', async () => {
    // A peer that completes the handshake as a subscriber itself: no READY of type PUB, so the connection is dropped.
    const peers: Socket[] = [];
    const server = createServer((s) => {
      peers.push(s);
      s.on('error', () => {});
      s.write(zmtpGreeting());
      s.write(zmtpCommand('READY', { 'Socket-Type': 'SUB' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const dropped: string[] = [];
    const warnLog = { debug: () => {}, warn: (o: { err?: string }) => void dropped.push(String(o.err)) };
    const port = (server.address() as AddressInfo).port;
    const sub = subscribeZmq({ url: `tcp://127.0.0.1:${port}`, topics: ['rawtx'], onMessage: () => {}, log: warnLog, retryMs: 60_000 });
    try {
      await until(() => dropped.length > 0);
      expect(dropped[0]).toContain('not a publisher');
    } finally {
      sub.close();
      for (const p of peers) p.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('with SATGATE_TEST_ZMQ_URL the watcher follows the node through ZeroMQ', () => {
  let node: RegtestNode;
  let pub: ZmqTestPublisher;
  let testDb: TestDb;
  let chains: ChainService;
  let commits = 0;

  beforeAll(async () => {
    node = await startRegtestNode();
    pub = await ZmqTestPublisher.start();
    relayRegtest(pub, node);
    testDb = await createTestDb('sqlite');
    chains = new ChainService(testDb.db, Date.now, log, ONE_HOUR, 2n);
    await chains.configure({ test: { rpcUrl: node.rpcUrl, zmqUrl: pub.url, network: 'regtest' } });
    chains.onCommitted(() => commits++);
    chains.start();
    while (chains.get('test')!.watcher.health().polls === 0) await new Promise((r) => setTimeout(r, 20));
    await pub.subscribed('rawtx');
    await pub.subscribed('hashblock');
  });

  afterAll(async () => {
    await chains?.stop();
    await pub?.close();
    await testDb?.dispose();
    await node?.stop();
  });

  it('records a mempool payment from its rawtx and then its block from hashblock, without a timer tick', async () => {
    const { script, addressId, walletId } = await insertReceiveAddress(testDb.db, 'test_zmq');
    chains.watch('test', script, { addressId, walletId });
    const pollsBefore = chains.get('test')!.watcher.health().polls;

    const paid = await node.pay(script, 50_000n);
    const seen = () => testDb.db.kysely.selectFrom('chain_txs').select(['txid', 'block_hash', 'state']).where('txid', '=', paid.txid).executeTakeFirst();
    await expect.poll(async () => (await seen())?.state, { timeout: 30_000 }).toBe('mempool');
    // Recorded from the pushed bytes: no poll ran for it.
    expect(chains.get('test')!.watcher.health().polls).toBe(pollsBefore);
    const output = await testDb.db.kysely.selectFrom('chain_outputs').select(['address_id', 'value_sats']).executeTakeFirstOrThrow();
    expect(output).toEqual({ address_id: addressId, value_sats: 50_000n });

    const [block] = await node.mine(1);
    await expect.poll(async () => (await seen())?.block_hash, { timeout: 30_000 }).toBe(block);
    // The block came through a poll that hashblock woke (the timer is an hour away).
    await until(() => chains.get('test')!.watcher.health().polls > pollsBefore);
    expect(commits).toBeGreaterThanOrEqual(2);
  });

  it('leaves a pushed transaction that pays nothing watched to the polls (no record)', async () => {
    const stranger = deriveReceiveAddress(parseExtendedPublicKey(generateNewWallet(true).accountKey), 0, 'p2wpkh', 'regtest');
    const paid = await node.pay(stranger.script, 20_000n);
    // The block after it proves the pushes were processed in order.
    const [block] = await node.mine(1);
    await expect.poll(async () => (await testDb.db.kysely.selectFrom('chain_tips').select('tip_hash').executeTakeFirst())?.tip_hash, { timeout: 30_000 }).toBe(block);
    expect(await testDb.db.kysely.selectFrom('chain_txs').select('id').where('txid', '=', paid.txid).executeTakeFirst()).toBeUndefined();
  });
});
