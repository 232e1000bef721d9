import { describe, expect, it } from 'vitest';
import type { RawTx } from '../bitcoin/raw-tx.ts';
import type { ChainChange } from './chain-events.ts';
import type { ChainStore } from './chain-store.ts';
import { ChangeFeed, TipMark } from './change-feed.ts';
import { WatchedSet } from './watched-set.ts';

const SCRIPT = new Uint8Array([0x00, 0x14, ...new Array(20).fill(7)]);

/** A store whose transactions run the work and then commit, or fail when `failCommit` is set. */
function fakeStore(opts: { failCommit?: boolean } = {}) {
  const calls: string[] = [];
  const store = {
    chain: 'test',
    async transaction<T>(work: (trx: never) => Promise<T>): Promise<T> {
      const out = await work({} as never);
      if (opts.failCommit) throw new Error('commit failed');
      return out;
    },
    async upsertTx() {
      calls.push('upsertTx');
      return 1n;
    },
    async addOutput() {
      calls.push('addOutput');
      return 10n;
    },
    async addSpend() {
      return 5n;
    },
    async setTip() {
      calls.push('setTip');
    },
    async rollbackAbove() {
      calls.push('rollbackAbove');
      return new Set([5n]);
    },
    async withdraw() {
      calls.push('withdraw');
      return new Set([5n]);
    },
  };
  return { store: store as unknown as ChainStore, calls };
}

function payment(txid: string): RawTx {
  return { txid, version: 2, hasWitness: false, coinbase: false, inputs: [], outputs: [{ value: 1000n, script: SCRIPT }], locktime: 0, bytes: new Uint8Array(), vsize: 100 };
}

function watchedSet(): WatchedSet {
  const watched = new WatchedSet('test');
  watched.addScript(SCRIPT, { addressId: 5n, walletId: 1n });
  return watched;
}

describe('the change feed', () => {
  it('tells committed-listeners after each change that touched an address, and not after one that failed', async () => {
    const { store } = fakeStore();
    const feed = new ChangeFeed(store, watchedSet(), () => 42, 'each-change');
    const changes: ChainChange[] = [];
    let committed = 0;
    feed.onChange(async (_trx, change) => void changes.push(change));
    feed.onCommitted(() => committed++);

    await feed.moveTip({ hash: 'aa', height: 7, prevHash: 'bb', time: 1 });
    expect(committed).toBe(0);
    await feed.withdraw([1n], () => 7);
    expect(committed).toBe(1);
    expect(changes.map((c) => [c.cause, [...c.addressIds], c.tipHeight, c.now])).toEqual([
      ['tip', [], 7, 42],
      ['withdrawn', [5n], 7, 42],
    ]);

    const failing = new ChangeFeed(fakeStore({ failCommit: true }).store, watchedSet(), () => 42, 'each-change');
    let failedCommitted = 0;
    failing.onCommitted(() => failedCommitted++);
    await expect(failing.withdraw([1n], () => 7)).rejects.toThrow('commit failed');
    expect(failedCommitted).toBe(0);
  });

  it('with end-of-poll, tells committed-listeners once when the poll ends', async () => {
    const { store } = fakeStore();
    const feed = new ChangeFeed(store, watchedSet(), () => 42, 'end-of-poll');
    let committed = 0;
    feed.onCommitted(() => committed++);
    await feed.withdraw([1n], () => 7);
    await feed.rollback(3, undefined);
    expect(committed).toBe(0);
    feed.pollEnded();
    expect(committed).toBe(1);
    feed.pollEnded();
    expect(committed).toBe(1);
  });

  it('records a matching transaction, and forgets the outputs it started watching when the change fails', async () => {
    const ok = fakeStore();
    const watched = watchedSet();
    const feed = new ChangeFeed(ok.store, watched, () => 42, 'each-change');
    const seen: Array<[number, bigint[], boolean]> = [];
    await feed.record([payment('11'.repeat(32))], { mempool: true }, async (_trx, now, touched, matched) => void seen.push([now, [...touched], matched]));
    expect(seen).toEqual([[42, [5n], true]]);
    expect(ok.calls).toEqual(['upsertTx', 'addOutput']);
    expect(watched.outpoints.get(`${'11'.repeat(32)}:0`)).toBe(10n);

    const failing = new ChangeFeed(fakeStore({ failCommit: true }).store, watched, () => 42, 'each-change');
    await expect(failing.record([payment('22'.repeat(32))], { mempool: true }, async () => {})).rejects.toThrow('commit failed');
    expect(watched.outpoints.has(`${'22'.repeat(32)}:0`)).toBe(false);
    expect(watched.outpoints.has(`${'11'.repeat(32)}:0`)).toBe(true);
  });

  it('rolls back, writes what moves alongside, sets the fork as tip and emits a reorg, in that order', async () => {
    const { store, calls } = fakeStore();
    const feed = new ChangeFeed(store, watchedSet(), () => 42, 'each-change');
    const causes: string[] = [];
    feed.onChange(async (_trx, change) => void causes.push(`${change.cause}@${change.tipHeight}`));
    const out = await feed.rollback(3, { hash: 'aa', height: 3, prevHash: 'bb', time: 1 }, async () => {
      calls.push('alongside');
      return 'written';
    });
    expect(out).toBe('written');
    expect(calls).toEqual(['rollbackAbove', 'alongside', 'setTip']);
    expect(causes).toEqual(['reorg@3']);
  });
});

describe('the tip mark', () => {
  it('restarts the stall clock only when the height changes', () => {
    let now = 1;
    const tip = new TipMark(() => now);
    tip.note(5, 'aa');
    expect([tip.height, tip.hash, tip.changedAt]).toEqual([5, 'aa', 1]);
    now = 2;
    tip.note(5, 'bb');
    expect([tip.height, tip.hash, tip.changedAt]).toEqual([5, 'bb', 1]);
    now = 3;
    tip.note(6);
    expect([tip.height, tip.hash, tip.changedAt]).toEqual([6, null, 3]);
  });
});
