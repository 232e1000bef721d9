// The store's on-chain wallet as BTCPay's Greenfield API shows it (StoreOnChainWallet: overview, receive address,
// transactions, UTXOs, sending), read from what the chain watcher recorded for the wallet's issued addresses and
// written through satgate's own issuing (the gap-limit rule) and spending (stored before broadcast, RBF) paths.
import type { Selectable } from 'kysely';
import type { WalletsTable } from '../db/schema.ts';
import { isJsonObject, JsonNumber, type JsonValue } from '../money/exact-json.ts';
import { btcFromSats, satsFromBtc } from '../money/money.ts';
import { isDecimal } from '../money/decimal.ts';
import { confirmations } from '../wallets/address-activity.ts';
import { branchAndIndex } from '../spending/spend-store.ts';
import { InsufficientFundsError, SpendRefusedError, WatchOnlyWalletError } from '../spending/spending-errors.ts';
import { GreenfieldError, GreenfieldValidationError, type GreenfieldFieldError } from './errors.ts';
import type { Greenfield } from './greenfield.ts';

type WalletRow = Selectable<WalletsTable>;
type Deps = Pick<Greenfield, 'db' | 'clock' | 'spending' | 'issuer'>;

/** How long a receive address handed out here stays reserved unless unreserved (DELETE) or paid. */
const RECEIVE_RESERVATION_MS = 30 * 24 * 3_600_000;

/** One output of the wallet with its transaction and whether (and by what) it is spent. */
interface WalletOutputRow {
  outputId: bigint;
  txid: string;
  vout: number;
  sats: bigint;
  state: string;
  blockHash: string | null;
  blockHeight: number | null;
  blockTime: number | null;
  firstSeenAt: number;
  address: string;
  addressId: bigint;
  derivationIndex: bigint;
  spentBy: { txid: string; state: string } | null;
}

/** BTCPay's `0/5` (receive) or `1/5` (change). */
function keyPathOf(derivationIndex: bigint): string {
  const { branch, index } = branchAndIndex(derivationIndex);
  return `${branch}/${index}`;
}

async function walletOutputs(deps: Deps, wallet: WalletRow): Promise<WalletOutputRow[]> {
  const rows = await deps.db.kysely
    .selectFrom('chain_outputs as o')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .select(['o.id', 'o.vout', 'o.value_sats', 't.txid', 't.state', 't.block_hash', 't.block_height', 't.block_time', 't.first_seen_at', 'a.address', 'a.id as address_id', 'a.derivation_index'])
    .where('a.wallet_id', '=', wallet.id)
    .where('t.state', '!=', 'withdrawn')
    .orderBy('o.id')
    .execute();
  const spends = await deps.db.kysely
    .selectFrom('chain_spends as s')
    .innerJoin('chain_txs as t', 't.id', 's.tx_id')
    .innerJoin('chain_outputs as o', 'o.id', 's.output_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .select(['s.output_id', 't.txid', 't.state'])
    .where('a.wallet_id', '=', wallet.id)
    .where('t.state', '!=', 'withdrawn')
    .execute();
  const spentBy = new Map(spends.map((s) => [s.output_id, { txid: s.txid, state: s.state }]));
  return rows.map((r) => ({
    outputId: r.id,
    txid: r.txid,
    vout: Number(r.vout),
    sats: r.value_sats,
    state: r.state,
    blockHash: r.block_hash,
    blockHeight: r.block_height === null ? null : Number(r.block_height),
    blockTime: r.block_time === null ? null : Number(r.block_time),
    firstSeenAt: Number(r.first_seen_at),
    address: r.address,
    addressId: r.address_id,
    derivationIndex: r.derivation_index,
    spentBy: spentBy.get(r.id) ?? null,
  }));
}

async function tipOf(deps: Deps, wallet: WalletRow): Promise<number | null> {
  const tip = await deps.db.kysely.selectFrom('chain_tips').select('tip_height').where('chain', '=', wallet.mode).executeTakeFirst();
  return tip ? Number(tip.tip_height) : null;
}

/** GET …/wallet: balances in BTC as decimal strings; unconfirmed is what mempool transactions add or take. */
export async function walletOverview(deps: Deps, wallet: WalletRow): Promise<Record<string, unknown>> {
  const outputs = await walletOutputs(deps, wallet);
  let balance = 0n;
  let confirmed = 0n;
  for (const o of outputs) {
    if (o.spentBy === null) balance += o.sats;
    if (o.state === 'block' && (o.spentBy === null || o.spentBy.state !== 'block')) confirmed += o.sats;
  }
  return {
    balance: btcFromSats(balance, true),
    unconfirmedBalance: btcFromSats(balance - confirmed, true),
    confirmedBalance: btcFromSats(confirmed, true),
    label: wallet.account_name ?? '',
  };
}

/** The wallet's transactions, newest first, each with its net amount for the wallet. */
async function walletTransactions(deps: Deps, wallet: WalletRow): Promise<Record<string, unknown>[]> {
  const outputs = await walletOutputs(deps, wallet);
  const txs = await deps.db.kysely
    .selectFrom('chain_txs as t')
    .select(['t.txid', 't.state', 't.block_hash', 't.block_height', 't.block_time', 't.first_seen_at'])
    .where('t.chain', '=', wallet.mode)
    .where('t.state', '!=', 'withdrawn')
    .where('t.txid', 'in', [...new Set([...outputs.map((o) => o.txid), ...outputs.flatMap((o) => (o.spentBy ? [o.spentBy.txid] : []))]), ''])
    .execute();
  const net = new Map<string, bigint>();
  for (const o of outputs) {
    net.set(o.txid, (net.get(o.txid) ?? 0n) + o.sats);
    if (o.spentBy) net.set(o.spentBy.txid, (net.get(o.spentBy.txid) ?? 0n) - o.sats);
  }
  const tip = await tipOf(deps, wallet);
  const comments = await commentsOf(deps, wallet);
  return txs
    .map((t) => ({
      transactionHash: t.txid,
      comment: comments.get(t.txid) ?? '',
      amount: btcFromSats(net.get(t.txid) ?? 0n, true),
      blockHash: t.block_hash,
      blockHeight: t.block_height === null ? null : Number(t.block_height),
      confirmations: confirmations(t.state, t.block_height === null ? null : Number(t.block_height), tip),
      timestamp: t.block_time !== null ? Number(t.block_time) : Math.floor(Number(t.first_seen_at) / 1000),
      status: t.state === 'block' ? 'Confirmed' : 'Unconfirmed',
      labels: {},
      firstSeen: Number(t.first_seen_at),
    }))
    .sort((a, b) => b.firstSeen - a.firstSeen || (a.transactionHash < b.transactionHash ? -1 : 1))
    .map(({ firstSeen: _firstSeen, ...rest }) => rest);
}

/** A transaction's comment: the newest note (addr_info) on an address it pays, or what our own spend was for. */
async function commentsOf(deps: Deps, wallet: WalletRow): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const spends = await deps.db.kysely.selectFrom('spends').select(['txid', 'purpose']).where('wallet_id', '=', wallet.id).orderBy('id').execute();
  for (const s of spends) out.set(s.txid, s.purpose);
  const notes = await deps.db.kysely
    .selectFrom('address_notes as n')
    .innerJoin('chain_outputs as o', 'o.address_id', 'n.address_id')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .innerJoin('addresses as a', 'a.id', 'n.address_id')
    .select(['t.txid', 'n.info'])
    .where('a.wallet_id', '=', wallet.id)
    .orderBy('n.id')
    .execute();
  for (const n of notes) out.set(n.txid, n.info);
  return out;
}

/** Query of GET …/wallet/transactions: statusFilter (repeated), skip, limit. */
export interface TransactionsQuery {
  statusFilter: string[];
  skip: number;
  limit: number | null;
}

/** GET …/wallet/transactions. */
export async function listTransactions(deps: Deps, wallet: WalletRow, q: TransactionsQuery): Promise<Record<string, unknown>[]> {
  for (const s of q.statusFilter) {
    if (!['Confirmed', 'Unconfirmed', 'Replaced'].includes(s)) throw new GreenfieldValidationError([{ path: 'statusFilter', message: 'must be Confirmed, Unconfirmed or Replaced' }]);
  }
  let all = await walletTransactions(deps, wallet);
  if (q.statusFilter.length > 0) all = all.filter((t) => q.statusFilter.includes(t.status as string));
  return all.slice(q.skip, q.limit === null ? undefined : q.skip + q.limit);
}

/** GET …/wallet/transactions/{txid}: 404 when the wallet has no such transaction. */
export async function oneTransaction(deps: Deps, wallet: WalletRow, txid: string): Promise<Record<string, unknown>> {
  const found = (await walletTransactions(deps, wallet)).find((t) => t.transactionHash === txid.toLowerCase());
  if (!found) throw new GreenfieldError(404, 'transaction-not-found', 'The wallet has no such transaction.');
  return found;
}

/** GET …/wallet/utxos: the unspent outputs, mempool ones included. */
export async function listUtxos(deps: Deps, wallet: WalletRow): Promise<Record<string, unknown>[]> {
  const outputs = await walletOutputs(deps, wallet);
  const tip = await tipOf(deps, wallet);
  const comments = await commentsOf(deps, wallet);
  return outputs
    .filter((o) => o.spentBy === null)
    .map((o) => ({
      comment: comments.get(o.txid) ?? '',
      amount: btcFromSats(o.sats, true),
      link: null,
      outpoint: `${o.txid}-${o.vout}`,
      timestamp: o.blockTime ?? Math.floor(o.firstSeenAt / 1000),
      keyPath: keyPathOf(o.derivationIndex),
      address: o.address,
      confirmations: confirmations(o.state, o.blockHeight, tip),
      labels: {},
    }));
}

/**
 * GET …/wallet/address: the store's current receive address while it is unused and reserved, else (or with
 * forceGenerate) a new one, reserved through the issuer under the gap limit (the rule of set_addr).
 */
export async function receiveAddress(deps: Deps, wallet: WalletRow, forceGenerate: boolean): Promise<Record<string, unknown>> {
  const now = deps.clock();
  const current = forceGenerate ? undefined : await currentReceive(deps, wallet, now);
  const row =
    current ??
    (await deps.db.kysely.transaction().execute(async (trx) => {
      const issued = await deps.issuer.reserveForOrder(trx, wallet, { now, until: now + RECEIVE_RESERVATION_MS, reuse: { kind: 'none' } });
      await trx.deleteFrom('greenfield_receive_addresses').where('wallet_id', '=', wallet.id).execute();
      await trx.insertInto('greenfield_receive_addresses').values({ wallet_id: wallet.id, address_id: issued.id, created_at: BigInt(now) }).execute();
      return issued;
    }));
  return { address: row.address, keyPath: keyPathOf(row.derivation_index), paymentLink: `bitcoin:${row.address}` };
}

async function currentReceive(deps: Deps, wallet: WalletRow, now: number) {
  return deps.db.kysely
    .selectFrom('greenfield_receive_addresses as g')
    .innerJoin('addresses as a', 'a.id', 'g.address_id')
    .select(['a.id', 'a.address', 'a.derivation_index'])
    .where('g.wallet_id', '=', wallet.id)
    .where('a.first_funded_at', 'is', null)
    .where('a.reserved_until', '>', BigInt(now))
    .executeTakeFirst();
}

/** DELETE …/wallet/address: releases the current receive address (unused, it may be handed out again). */
export async function unreserveAddress(deps: Deps, wallet: WalletRow): Promise<void> {
  const now = deps.clock();
  await deps.db.kysely.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('greenfield_receive_addresses').select('address_id').where('wallet_id', '=', wallet.id).executeTakeFirst();
    if (!row) return;
    await trx.updateTable('addresses').set({ reserved_until: BigInt(now) }).where('id', '=', row.address_id).where('first_funded_at', 'is', null).execute();
    await trx.deleteFrom('greenfield_receive_addresses').where('wallet_id', '=', wallet.id).execute();
  });
}

/** A checked POST …/wallet/transactions body. */
interface SendRequest {
  outputs: { address: string; amountSats: bigint }[];
  feeRate: bigint | undefined;
}

/** What satgate cannot do of BTCPay's send options: asked for, they are refused rather than silently ignored. */
function checkSendBody(body: JsonValue | undefined): SendRequest {
  if (!isJsonObject(body)) throw new GreenfieldValidationError([{ path: '', message: 'must be a JSON object' }]);
  const errors: GreenfieldFieldError[] = [];
  const outputs: SendRequest['outputs'] = [];
  const dest = body.destinations;
  if (!Array.isArray(dest) || dest.length === 0) errors.push({ path: 'destinations', message: 'must be a non-empty array' });
  else
    dest.forEach((d, i) => {
      const at = `destinations[${i}]`;
      if (!isJsonObject(d)) return errors.push({ path: at, message: 'must be an object' });
      if (typeof d.destination !== 'string' || d.destination === '') errors.push({ path: `${at}.destination`, message: 'must be an address' });
      if (d.subtractFromAmount !== undefined && d.subtractFromAmount !== false && d.subtractFromAmount !== null) {
        errors.push({ path: `${at}.subtractFromAmount`, message: 'is not supported: the fee is always paid on top' });
      }
      const text = typeof d.amount === 'string' ? d.amount : d.amount instanceof JsonNumber ? d.amount.toDecimal() : null;
      if (text === null || !isDecimal(text) || !/^\d+(\.\d{1,8})?$/.test(text)) {
        errors.push({ path: `${at}.amount`, message: 'must be a positive amount of BTC with at most 8 decimals' });
        return;
      }
      const sats = satsFromBtc(text);
      if (sats <= 0n) errors.push({ path: `${at}.amount`, message: 'must be positive' });
      if (typeof d.destination === 'string') outputs.push({ address: d.destination, amountSats: sats });
    });
  let feeRate: bigint | undefined;
  if (body.feerate !== undefined && body.feerate !== null) {
    const text = body.feerate instanceof JsonNumber ? body.feerate.toDecimal() : typeof body.feerate === 'string' ? body.feerate : '';
    if (!/^[1-9]\d{0,5}$/.test(text)) errors.push({ path: 'feerate', message: 'must be a whole number of sat/vB from 1' });
    else feeRate = BigInt(text);
  }
  const refuse = (name: string, ok: (v: JsonValue) => boolean, why: string) => {
    const v = body[name];
    if (v !== undefined && v !== null && !ok(v)) errors.push({ path: name, message: why });
  };
  refuse('proceedWithBroadcast', (v) => v === true, 'must be true: satgate signs, stores and broadcasts in one step');
  refuse('proceedWithPayjoin', (v) => v === false, 'is not supported');
  refuse('noChange', (v) => v === false, 'is not supported');
  refuse('rbf', (v) => v === true, 'must be true: every satgate spend signals replace-by-fee');
  refuse('selectedInputs', (v) => Array.isArray(v) && v.length === 0, 'is not supported: coins are selected by the service');
  refuse('excludeUnconfirmed', (v) => typeof v === 'boolean', 'must be a boolean');
  if (errors.length > 0) throw new GreenfieldValidationError(errors);
  return { outputs, feeRate };
}

/**
 * POST …/wallet/transactions: a service-held wallet pays through the spending capability (coins reserved, signed
 * and stored before broadcast, RBF); a watch-only wallet is refused, pointing to the PSBT flow.
 */
export async function sendFromWallet(deps: Deps, wallet: WalletRow, body: JsonValue | undefined): Promise<Record<string, unknown>> {
  if (wallet.seed_sealed === null) throw watchOnly();
  const req = checkSendBody(body);
  let spend;
  try {
    spend = await deps.spending.spend({ walletId: wallet.id, outputs: req.outputs, purpose: 'greenfield', ...(req.feeRate !== undefined ? { feeRate: req.feeRate } : {}) });
  } catch (err) {
    if (err instanceof WatchOnlyWalletError) throw watchOnly();
    if (err instanceof InsufficientFundsError) throw new GreenfieldError(400, 'insufficient-funds', err.message);
    if (err instanceof SpendRefusedError) throw new GreenfieldValidationError([{ path: 'destinations', message: err.message }]);
    throw err;
  }
  const inputs = await deps.db.kysely.selectFrom('spend_inputs').select('value_sats').where('spend_id', '=', spend.id).execute();
  const spent = inputs.reduce((s, r) => s + BigInt(r.value_sats), 0n);
  const change = await deps.db.kysely.selectFrom('spend_outputs').select('amount_sats').where('spend_id', '=', spend.id).where('is_change', '=', 1n).execute();
  const kept = change.reduce((s, r) => s + BigInt(r.amount_sats), 0n);
  return {
    transactionHash: spend.txid,
    comment: '',
    amount: btcFromSats(kept - spent, true),
    blockHash: null,
    blockHeight: null,
    confirmations: 0,
    timestamp: Math.floor(Number(spend.created_at) / 1000),
    status: 'Unconfirmed',
    labels: {},
  };
}

function watchOnly(): GreenfieldError {
  return new GreenfieldError(
    400,
    'watch-only-wallet',
    'This store wallet is watch-only: satgate holds no key to sign with. Build a PSBT, sign it with your wallet (e.g. Electrum) and broadcast it there.',
  );
}
