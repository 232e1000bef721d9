// One entry of a script's history as a light server lists it, checked before it is recorded: the transaction's
// bytes hash to the txid asked for, and a mined one comes with a Merkle proof into a header of our own chain.
import { parseTransaction, type RawTx } from '../../bitcoin/raw-tx.ts';
import type { ChainChangeCause } from '../chain-events.ts';
import type { ChainStore } from '../chain-store.ts';
import type { ChangeFeed } from '../change-feed.ts';
import type { TxPlace } from '../tx-recorder.ts';
import type { HeaderChain } from './header-chain.ts';
import type { LightBackend } from './light-backend.ts';
import { merkleRootFromBranch } from './merkle-proof.ts';
import type { HistoryEntry } from './script-hash.ts';
import type { ServerLies } from './server-lies.ts';

export class HistoryVerifier {
  constructor(
    private readonly deps: { backend: LightBackend; store: ChainStore; feed: ChangeFeed; headers: HeaderChain; lies: ServerLies },
  ) {}

  /** Records one history entry once it verifies; false when it could not be settled this time. */
  async settle(entry: HistoryEntry): Promise<boolean> {
    const { store, backend, headers, lies } = this.deps;
    const existing = await store.txState(entry.txid);
    if (entry.height > 0) {
      const header = headers.at(entry.height);
      if (!header) return false; // above our verified tip: next poll
      if (existing?.state === 'block' && existing.block_hash === header.hash) return true;
      const tx = await this.fetchTx(entry.txid);
      if (!tx) return false;
      const proof = await backend.merkleProof(entry.txid, entry.height);
      const root = merkleRootFromBranch(tx.parsed.txid, proof.branch, proof.pos);
      // 64-byte transactions can pose as inner Merkle nodes; no real payment is that small.
      if (proof.height !== entry.height || root !== header.merkleRoot || tx.raw.length === 64) {
        lies.record('bad-merkle-proof', `${entry.txid} claimed in block ${entry.height} (${header.hash}) without a valid proof`);
        return false;
      }
      await this.record(tx.parsed, { block: { hash: header.hash, height: header.height, time: header.time } }, 'block');
      return true;
    }
    // Unconfirmed: shown as such and never as more. A transaction we hold as mined stays mined while its
    // block is in our chain; one withdrawn earlier comes back.
    if (existing && existing.state !== 'withdrawn') return true;
    const tx = await this.fetchTx(entry.txid);
    if (!tx) return false;
    await this.record(tx.parsed, { mempool: true }, 'mempool');
    return true;
  }

  /** The transaction's raw bytes; its id is computed here, never taken from the server. */
  private async fetchTx(txid: string): Promise<{ parsed: RawTx; raw: Uint8Array } | null> {
    const { backend, lies } = this.deps;
    const raw = await backend.rawTransaction(txid);
    if (!raw) {
      lies.record('missing-transaction', `${txid} is in a history but the server does not produce it`);
      return null;
    }
    let parsed: RawTx;
    try {
      parsed = parseTransaction(raw);
    } catch (err) {
      lies.record('txid-mismatch', `${txid}: the bytes sent are not a transaction (${(err as Error).message})`);
      return null;
    }
    if (parsed.txid !== txid) {
      lies.record('txid-mismatch', `asked for ${txid}, the bytes sent hash to ${parsed.txid}`);
      return null;
    }
    return { parsed, raw };
  }

  private async record(tx: RawTx, where: TxPlace, cause: ChainChangeCause): Promise<void> {
    const { feed, headers } = this.deps;
    await feed.record([tx], where, async (trx, now, touched, matched) => {
      if (matched) await feed.emit(trx, cause, touched, headers.tip()?.height ?? 0, now);
    });
  }
}
