/**
 * Spending from service-held wallets (DESIGN.md section 9, "spending"): coin selection with reservations in
 * the transaction that records the spend, signing from the sealed seed, store first, then broadcast, and
 * re-broadcast until the node has it. One factory; routes and other capabilities use only what it returns.
 */
import type { Logger } from 'pino';
import type { Transaction } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import type { Clock } from '../core/clock.ts';
import type { MasterKey } from '../security/master-key.ts';
import type { ChainService } from '../chain/chain-service.ts';
import { lockRow } from '../db/row-locks.ts';
import { decodeAddressFor, InvalidAddressError } from '../bitcoin/address.ts';
import { walletKeyOf } from '../bitcoin/wallet-key.ts';
import type { Network } from '../bitcoin/networks.ts';
import type { ScriptType } from '../bitcoin/script-type.ts';
import { selectCoins } from './coin-selection.ts';
import { dustThreshold } from './tx-size.ts';
import { buildSignedTx, type SignInput } from './build-tx.ts';
import { openSigner } from './wallet-signer.ts';
import { SpendRefusedError } from './spending-errors.ts';
import {
  branchAndIndex,
  changeDerivationIndex,
  findByReference,
  insertSpend,
  isUniqueViolation,
  nextChangeIndex,
  reusableChangeAddress,
  spendableCoins,
  type SpendRow,
} from './spend-store.ts';
import { SpendBroadcaster, type SpendStatusListener } from './broadcaster.ts';
import { bumpSpend } from './bump.ts';
import type { Lifecycle } from '../core/lifecycle.ts';

type Trx = Transaction<Database>;

/** One output to pay. */
export interface SpendOutput {
  address: string;
  amountSats: bigint;
}

/** What to send, from which wallet, and why. */
export interface SpendRequest {
  walletId: bigint;
  outputs: SpendOutput[];
  /** What the spend is for: 'refund', 'withdrawal', 'operator'… */
  purpose: string;
  /** With `purpose`, makes the spend idempotent: a second request answers the first spend. */
  reference?: string;
  /** sat/vB; the node's estimate (or SATGATE_FALLBACK_FEE_RATE) when absent. */
  feeRate?: bigint;
}

/** Options of one spend. */
export interface SpendOptions {
  /** Runs inside the database transaction that records the spend (link your own rows to it atomically). */
  inTransaction?: (trx: Trx, spend: SpendRow) => Promise<void>;
}

/** What spending needs from the process. */
export interface SpendingDeps {
  db: Db;
  chains: Pick<ChainService, 'forMode' | 'get' | 'watch'>;
  masterKey: MasterKey;
  clock: Clock;
  log: Logger;
  /** How often stored spends are re-checked and re-broadcast. */
  pollMs: number;
  fallbackFeeRate: bigint;
  /** Confirmation target for estimatesmartfee (blocks). */
  confTarget?: number;
}

/** The spending capability. */
export interface Spending {
  /** Builds, signs, stores and broadcasts a spend; answers the stored spend. */
  spend(req: SpendRequest, opts?: SpendOptions): Promise<SpendRow>;
  /** The fee rate (sat/vB) a spend on this chain would use now. */
  feeRate(mode: string): Promise<bigint>;
  /** Spends, newest first, optionally of one wallet. */
  list(walletId?: bigint): Promise<SpendRow[]>;
  /** Replaces a stalled spend with one paying the same outputs at a higher fee rate (BIP125). */
  bump(txid: string, feeRate: bigint): Promise<SpendRow>;
  /** Called (inside the transaction) whenever a spend's status changes. */
  onStatus(listener: SpendStatusListener): void;
  /** Re-checks every open spend once: broadcast what the node lacks, settle what the chain decided. */
  reconcile(): Promise<void>;
  /** Records (and broadcasts) a transaction signed elsewhere that spends the given reserved coins. */
  recordExternal: SpendBroadcaster['recordExternal'];
  /** The broadcaster's loop (singleton work). */
  background: Lifecycle;
}

/** Builds the spending capability. */
export function createSpending(deps: SpendingDeps): Spending {
  const broadcaster = new SpendBroadcaster(deps);

  async function feeRate(mode: string): Promise<bigint> {
    const source = deps.chains.forMode(mode as 'live' | 'test').source;
    try {
      return await source.estimateFee(deps.confTarget ?? 6);
    } catch (err) {
      deps.log.warn({ err: (err as Error).message }, 'estimatesmartfee failed; using the fallback fee rate');
      return deps.fallbackFeeRate;
    }
  }

  async function spend(req: SpendRequest, opts: SpendOptions = {}): Promise<SpendRow> {
    const wallet = await deps.db.kysely.selectFrom('wallets').selectAll().where('id', '=', req.walletId).executeTakeFirst();
    if (!wallet) throw new SpendRefusedError(`no wallet with id ${req.walletId}`);
    if (req.reference !== undefined) {
      const existing = await findByReference(deps.db.kysely, wallet.id, req.purpose, req.reference);
      if (existing) return existing;
    }
    const network = wallet.network as Network;
    const scriptType = wallet.script_type as ScriptType | 'p2tr';
    if (req.outputs.length === 0) throw new SpendRefusedError('a spend needs at least one output');
    const outputs = req.outputs.map((o) => {
      if (typeof o.amountSats !== 'bigint' || o.amountSats <= 0n) throw new SpendRefusedError('every amount must be a positive number of satoshis');
      let script: Uint8Array;
      try {
        script = decodeAddressFor(o.address, network).script;
      } catch (err) {
        if (err instanceof InvalidAddressError) throw new SpendRefusedError(`address ${o.address}: ${err.message}`);
        throw err;
      }
      if (o.amountSats < dustThreshold(script)) throw new SpendRefusedError(`${o.amountSats} sat to ${o.address} is below the dust threshold of ${dustThreshold(script)} sat`);
      return { address: o.address, script, amount: o.amountSats };
    });
    const rate = req.feeRate ?? (await feeRate(wallet.mode));
    const key = walletKeyOf(wallet, network);
    // Opened only once coins are selected: unsealing and stretching the seed costs tens of milliseconds.
    let signer: ReturnType<typeof openSigner> | undefined;
    let created: { row: SpendRow; change?: { id: bigint; script: Uint8Array } };
    try {
      created = await runWithRetry(() =>
        deps.db.kysely.transaction().execute(async (trx) => {
          await lockRow(trx, deps.db, 'wallets', wallet.id);
          if (req.reference !== undefined) {
            const existing = await findByReference(trx, wallet.id, req.purpose, req.reference);
            if (existing) return { row: existing };
          }
          const now = deps.clock();
          const reuse = await reusableChangeAddress(trx, wallet.id);
          const changeIndex = reuse ? branchAndIndex(reuse.derivation_index).index : await nextChangeIndex(trx, wallet.id);
          const changeAddr = key.change(changeIndex);
          const coins = await spendableCoins(trx, wallet.id, scriptType);
          const selection = selectCoins(coins, outputs, rate, changeAddr.script);
          signer ??= openSigner(wallet, deps.masterKey);
          const keys = signer;
          const inputs: SignInput[] = selection.coins.map((c) => {
            const path = branchAndIndex(coins.find((x) => x.outputId === c.outputId)!.derivationIndex);
            return { txid: c.txid, vout: c.vout, value: c.value, script: Buffer.from(coinScript(coins, c.outputId), 'hex'), scriptType, key: keys.child(path.branch, path.index) };
          });
          const signed = buildSignedTx(inputs, outputs, rate, selection.change > 0n ? changeAddr.script : undefined, selection.fee);
          let changeId: bigint | null = null;
          if (signed.change > 0n) {
            changeId = reuse
              ? reuse.id
              : (
                  await trx
                    .insertInto('addresses')
                    .values({
                      wallet_id: wallet.id,
                      derivation_index: changeDerivationIndex(changeIndex),
                      address: changeAddr.address,
                      script_hex: Buffer.from(changeAddr.script).toString('hex'),
                      created_at: BigInt(now),
                      reserved_until: null,
                      purpose: 'change',
                    })
                    .returning('id')
                    .executeTakeFirstOrThrow()
                ).id;
          }
          const row = await insertSpend(
            trx,
            {
              walletId: wallet.id,
              purpose: req.purpose,
              reference: req.reference ?? null,
              kind: 'signed',
              txid: signed.txid,
              hex: signed.hex,
              fee: signed.fee,
              feeRate: rate,
              vsize: signed.vsize,
              changeAddressId: changeId,
              inputs: selection.coins.map((c) => ({ outputId: c.outputId, txid: c.txid, vout: c.vout, value: c.value })),
              outputs: [
                ...outputs.map((o) => ({ address: o.address, scriptHex: Buffer.from(o.script).toString('hex'), amount: o.amount, change: false })),
                ...(signed.change > 0n ? [{ address: changeAddr.address, scriptHex: Buffer.from(changeAddr.script).toString('hex'), amount: signed.change, change: true }] : []),
              ],
              status: 'signed',
            },
            now,
          );
          if (opts.inTransaction) await opts.inTransaction(trx, row);
          return { row, ...(changeId !== null ? { change: { id: changeId, script: changeAddr.script } } : {}) };
        }),
      );
    } finally {
      signer?.wipe();
    }
    // Watch the change before the node can announce the transaction, so the watcher records it as ours.
    if (created.change) deps.chains.watch(wallet.mode as 'live' | 'test', created.change.script, { addressId: created.change.id, walletId: wallet.id });
    deps.log.info({ spend: created.row.id.toString(), txid: created.row.txid, purpose: req.purpose }, 'spend signed and stored');
    await broadcaster.broadcastOne(created.row.id);
    return (await deps.db.kysely.selectFrom('spends').selectAll().where('id', '=', created.row.id).executeTakeFirstOrThrow());
  }

  return {
    spend,
    feeRate,
    list: async (walletId) => {
      let q = deps.db.kysely.selectFrom('spends').selectAll().orderBy('id', 'desc');
      if (walletId !== undefined) q = q.where('wallet_id', '=', walletId);
      return q.execute();
    },
    bump: async (txid, rate) => {
      const row = await bumpSpend(deps, txid, rate);
      await broadcaster.broadcastOne(row.id);
      return deps.db.kysely.selectFrom('spends').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    },
    onStatus: (l) => broadcaster.onStatus(l),
    reconcile: () => broadcaster.reconcile(),
    recordExternal: (...args) => broadcaster.recordExternal(...args),
    background: { start: () => broadcaster.start(), stop: () => broadcaster.stop() },
  };
}

function coinScript(coins: { outputId: bigint; scriptHex: string }[], outputId: bigint): string {
  return coins.find((c) => c.outputId === outputId)!.scriptHex;
}

/** Two spends racing for one coin on PostgreSQL: the loser's reservation fails; it selects again. */
async function runWithRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 4) throw err;
    }
  }
}
