/**
 * Payments from watch-only wallets as PSBTs to sign, shared by refunds and Greenfield payouts: the unsigned PSBT
 * paying given outputs from the wallet's free coins (change to the wallet's next change key), and the check of
 * what the merchant posts back: a signed PSBT (or the cosigners' partial PSBTs, combined) or raw transaction
 * whose inputs are free coins of the wallet (no coin spent twice: coins of recorded spends are not free) and
 * whose outputs are each claimed by the caller or are change to the wallet. Recording stores the transaction
 * (and the change address) in one database transaction with the caller's link, before the broadcast.
 */
import type { Transaction } from 'kysely';
import { RpcChainSource } from '../chain/chain-source.ts';
import { RpcError } from '../chain/rpc-client.ts';
import type { ChainService } from '../chain/chain-service.ts';
import type { Db } from '../db/database.ts';
import type { Database } from '../db/schema.ts';
import { parseExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { addressFromScript } from '../bitcoin/address.ts';
import { walletKeyOf, type WalletKey } from '../bitcoin/wallet-key.ts';
import type { Network } from '../bitcoin/networks.ts';
import type { ScriptType } from '../bitcoin/script-type.ts';
import { btcFromSats } from '../money/money.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import { selectCoins } from './coin-selection.ts';
import { SpendRefusedError } from './spending-errors.ts';
import { buildWatchOnlyPsbt, readSignedTransaction, type PsbtInput, type SignedTransaction } from './psbt.ts';
import { buildWalletKeyPsbt } from './wallet-psbt.ts';
import { inputSpecOf } from './tx-size.ts';
import { branchAndIndex, changeDerivationIndex, isUniqueViolation, nextChangeIndex, spendableCoins, type SpendRow } from './spend-store.ts';
import type { Spending } from './spending.ts';

/** How many change indexes past the next unused one a posted transaction may pay (a signer's own choice). */
const CHANGE_LOOKAHEAD = 20;

/** What building and checking watch-only payments need. */
export interface WatchOnlyPsbtDeps {
  db: Db;
  chains: Pick<ChainService, 'forMode' | 'watch'>;
  spending: Pick<Spending, 'feeRate' | 'recordExternal'>;
  clock: () => number;
}

export interface PsbtOutput {
  script: Uint8Array;
  amount: bigint;
}

/** The unsigned PSBT paying `outputs` from the wallet's free coins; InsufficientFundsError when it cannot. */
export async function buildPaymentPsbt(deps: WatchOnlyPsbtDeps, wallet: WalletRow, outputs: PsbtOutput[]): Promise<{ psbt: string; fee: bigint; feeRate: bigint }> {
  const walletKey = walletKeyOf(wallet, wallet.network as Network);
  const rate = await deps.spending.feeRate(wallet.mode);
  const { coins, changeIndex } = await deps.db.kysely.transaction().execute(async (trx) => ({
    coins: await spendableCoins(trx, wallet.id, inputSpecOf(walletKey)),
    changeIndex: await nextChangeIndex(trx, wallet.id),
  }));
  const change = walletKey.change(changeIndex);
  const selection = selectCoins(coins, outputs, rate, change.script);
  const source = deps.chains.forMode(wallet.mode as 'live' | 'test').source;
  const inputs = [];
  for (const c of selection.coins) {
    const prevTx = await source.rawTransaction(c.txid);
    if (!prevTx) throw new Error(`the node does not have transaction ${c.txid}`);
    const full = coins.find((x) => x.outputId === c.outputId)!;
    inputs.push({ txid: c.txid, vout: c.vout, value: c.value, script: Buffer.from(full.scriptHex, 'hex'), prevTx, ...branchAndIndex(full.derivationIndex) });
  }
  const changeOutput = selection.change > 0n ? { change: { script: change.script, amount: selection.change, index: changeIndex } } : {};
  const psbt = wallet.descriptor ? buildWalletKeyPsbt({ key: walletKey, inputs, outputs, ...changeOutput }) : oneKeyPsbt(wallet, inputs, outputs, changeOutput);
  return { psbt, fee: selection.fee, feeRate: rate };
}

/** A one-key wallet's PSBT, with the key origin rules of bitcoin/key-origin.ts. */
function oneKeyPsbt(wallet: WalletRow, inputs: PsbtInput[], outputs: PsbtOutput[], change: { change?: { script: Uint8Array; amount: bigint; index: number } }): string {
  const key = parseExtendedPublicKey(wallet.pub);
  return buildWatchOnlyPsbt({ key, origin: wallet.key_origin ?? null, scriptType: wallet.script_type as ScriptType, inputs, outputs, ...change, testnet: key.testnet });
}

/**
 * What was posted as the signed transaction: one text, or the cosigners' partially signed PSBTs (a list, or
 * several PSBTs separated by white space, as pasted into the console) to be combined.
 */
function signedTexts(posted: unknown, refuse: (why: string) => never): string | string[] {
  const bad = (): never =>
    refuse('psbt (or tx) must be a signed PSBT in base64 or hex, a raw transaction in hex, or a list of the cosigners\' partially signed PSBTs');
  if (Array.isArray(posted)) {
    if (posted.length === 0 || posted.length > 20) return bad();
    return posted.map((p) => (typeof p === 'string' && p.length > 0 && p.length <= 400_000 ? p : bad()));
  }
  if (typeof posted !== 'string' || posted.length === 0 || posted.length > 400_000) return bad();
  const parts = posted.trim().split(/\s+/);
  return parts.length > 1 && parts.length <= 20 && parts.every((p) => /^cHNidP/.test(p) || /^70736274ff/i.test(p)) ? parts : posted;
}

/**
 * Reads what was posted as the signed transaction, refusing a text that is none before the caller reads anything
 * else (callers may call it first for that; checkSignedPayment reads it again, which costs a parse).
 */
export function readPostedTransaction(posted: unknown, refuse: (why: string) => never): SignedTransaction {
  const texts = signedTexts(posted, refuse);
  try {
    return readSignedTransaction(texts);
  } catch (err) {
    if (err instanceof SpendRefusedError) return refuse(err.message);
    throw err;
  }
}

/** A posted transaction that passed the checks, ready to be recorded. */
export interface CheckedPayment {
  txid: string;
  hex: string;
  vsize: number;
  fee: bigint;
  inputs: { outputId: bigint; txid: string; vout: number; value: bigint }[];
  outputs: PsbtOutput[];
  change?: { script: Uint8Array; amount: bigint; index: number };
}

/**
 * Reads and checks a posted signed transaction of the wallet: its inputs are free coins of the wallet, each
 * output is taken by `claim.take` (false for one it does not expect: `claim.what` names what it takes) or is change to the wallet; the
 * fee is positive. The caller checks the fee against what it pays. `refuse` throws the caller's error.
 */
export async function checkSignedPayment(
  deps: WatchOnlyPsbtDeps,
  wallet: WalletRow,
  posted: unknown,
  claim: { take: (output: PsbtOutput) => boolean; what: string },
  refuse: (why: string) => never,
): Promise<CheckedPayment> {
  const signed = readPostedTransaction(posted, refuse);
  const network = wallet.network as Network;
  const walletKey = walletKeyOf(wallet, network);
  const coins = await deps.db.kysely.transaction().execute((trx) => spendableCoins(trx, wallet.id, inputSpecOf(walletKey)));
  const byOutpoint = new Map(coins.map((c) => [`${c.txid}:${c.vout}`, c]));
  const inputs = signed.inputs.map((i) => byOutpoint.get(`${i.txid}:${i.vout}`) ?? refuse(`input ${i.txid}:${i.vout} is not a free coin of this wallet`));
  const inTotal = inputs.reduce((s, c) => s + c.value, 0n);
  let change: CheckedPayment['change'];
  const firstChange = await deps.db.kysely.transaction().execute((trx) => nextChangeIndex(trx, wallet.id));
  for (const o of signed.outputs) {
    if (claim.take(o)) continue;
    const index = change ? -1 : changeIndexOf(walletKey, o.script, firstChange);
    const hex = Buffer.from(o.script).toString('hex');
    if (index < 0) refuse(`output ${addressFromScript(o.script, network) ?? hex} of ${btcFromSats(o.amount)} BTC is neither ${claim.what} nor change to this wallet`);
    change = { script: o.script, amount: o.amount, index };
  }
  const fee = inTotal - signed.outputs.reduce((s, o) => s + o.amount, 0n);
  if (fee <= 0n) refuse('the transaction pays no fee');
  const rejected = await mempoolRejects(deps, wallet.mode, signed.hex);
  if (rejected) refuse(`the node refuses this transaction: ${rejected}`);
  return {
    txid: signed.txid,
    hex: signed.hex,
    vsize: signed.vsize,
    fee,
    inputs: inputs.map((c) => ({ outputId: c.outputId, txid: c.txid, vout: c.vout, value: c.value })),
    outputs: signed.outputs,
    ...(change ? { change } : {}),
  };
}

/**
 * Records a checked transaction as an external spend (with its change address) and the caller's link in one
 * database transaction, then broadcasts it. Another spend of one of its coins recorded meanwhile (two posts racing)
 * loses on the coin reservation: `refuse`d, nothing stored.
 */
export async function recordSignedPayment(
  deps: WatchOnlyPsbtDeps,
  wallet: WalletRow,
  checked: CheckedPayment,
  spend: { purpose: string; reference: string },
  link: (trx: Transaction<Database>, row: SpendRow) => Promise<void>,
  refuse: (why: string) => never,
): Promise<SpendRow> {
  const network = wallet.network as Network;
  const { change } = checked;
  try {
    return await record();
  } catch (err) {
    if (isUniqueViolation(err)) return refuse('a coin of this transaction was spent by another transaction recorded meanwhile');
    throw err;
  }

  function record() {
    return deps.spending.recordExternal(
      {
        walletId: wallet.id,
        purpose: spend.purpose,
        reference: spend.reference,
        txid: checked.txid,
        hex: checked.hex,
        fee: checked.fee,
        feeRate: checked.fee / BigInt(checked.vsize),
        vsize: checked.vsize,
        changeAddressId: null,
        inputs: checked.inputs,
        outputs: checked.outputs.map((o) => ({
          address: addressFromScript(o.script, network) ?? '',
          scriptHex: Buffer.from(o.script).toString('hex'),
          amount: o.amount,
          change: change !== undefined && Buffer.from(change.script).equals(Buffer.from(o.script)),
        })),
      },
      async (trx, row) => {
        if (change) {
          const existing = await trx.selectFrom('addresses').select('id').where('wallet_id', '=', wallet.id).where('derivation_index', '=', changeDerivationIndex(change.index)).executeTakeFirst();
          const id =
            existing?.id ??
            (
              await trx
                .insertInto('addresses')
                .values({
                  wallet_id: wallet.id,
                  derivation_index: changeDerivationIndex(change.index),
                  address: addressFromScript(change.script, network)!,
                  script_hex: Buffer.from(change.script).toString('hex'),
                  created_at: BigInt(deps.clock()),
                  reserved_until: null,
                  purpose: 'change',
                })
                .returning('id')
                .executeTakeFirstOrThrow()
            ).id;
          await trx.updateTable('spends').set({ change_address_id: id }).where('id', '=', row.id).execute();
          deps.chains.watch(wallet.mode as 'live' | 'test', change.script, { addressId: id, walletId: wallet.id });
        }
        await link(trx, row);
      },
    );
  }
}

/**
 * Asks the node whether it would accept the transaction (Bitcoin Core's `testmempoolaccept`: a bad signature
 * is refused here, before anything is recorded). Nodes without the call (bcoin) are asked nothing: the
 * broadcaster then retries, and the operator sees the node's reason in `satgate spend list`.
 */
async function mempoolRejects(deps: WatchOnlyPsbtDeps, mode: string, hex: string): Promise<string | undefined> {
  const source = deps.chains.forMode(mode as 'live' | 'test').source;
  // Only a node answers testmempoolaccept; a light source's broadcast is the first check there.
  if (!(source instanceof RpcChainSource)) return undefined;
  try {
    const [result] = await source.rpc.call<{ allowed?: boolean; 'reject-reason'?: string }[]>('testmempoolaccept', [[hex]]);
    return result && result.allowed === false ? (result['reject-reason'] ?? 'rejected') : undefined;
  } catch (err) {
    if (err instanceof RpcError) return undefined; // the node lacks the call (bcoin: "Method not found")
    throw err;
  }
}

/** The change index j (child 1/j) whose script this is, looking a little past the next unused index; -1 if none. */
function changeIndexOf(key: WalletKey, script: Uint8Array, from: number): number {
  const wanted = Buffer.from(script);
  for (let j = 0; j < from + CHANGE_LOOKAHEAD; j++) {
    if (wanted.equals(key.change(j).script)) return j;
  }
  return -1;
}
