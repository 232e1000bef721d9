/**
 * Refunds of watch-only wallets: one PSBT paying every scheduled refund of the wallet (the merchant signs
 * it in Electrum, Sparrow or a hardware wallet), and the check of what they post back: it pays scheduled
 * refunds exactly (each output a scheduled refund's address and amount, or the wallet's own change),
 * spends only the wallet's free coins, and pays a sane fee; then it is recorded and broadcast. Descriptor,
 * multisig and taproot wallets get a PSBT each cosigner can sign alone (spending/wallet-psbt.ts); their
 * partially signed PSBTs are posted together and combined, and finalised once the threshold is met.
 */
import { RpcChainSource } from '../chain/chain-source.ts';
import type { Db } from '../db/database.ts';
import { DomainError } from '../core/domain-errors.ts';
import { parseExtendedPublicKey } from '../bitcoin/extended-key.ts';
import { addressFromScript } from '../bitcoin/address.ts';
import { walletKeyOf, type WalletKey } from '../bitcoin/wallet-key.ts';
import type { Network } from '../bitcoin/networks.ts';
import type { ScriptType } from '../bitcoin/script-type.ts';
import { btcFromSats } from '../money/money.ts';
import type { WalletRow } from '../wallets/wallet-repository.ts';
import type { ChainService } from '../chain/chain-service.ts';
import { RpcError } from '../chain/rpc-client.ts';
import { selectCoins } from '../spending/coin-selection.ts';
import { InsufficientFundsError, SpendRefusedError } from '../spending/spending-errors.ts';
import { buildWatchOnlyPsbt, readSignedTransaction, type PsbtInput } from '../spending/psbt.ts';
import { buildWalletKeyPsbt } from '../spending/wallet-psbt.ts';
import { inputSpecOf } from '../spending/tx-size.ts';
import { branchAndIndex, changeDerivationIndex, nextChangeIndex, spendableCoins } from '../spending/spend-store.ts';
import type { Spending } from '../spending/spending.ts';

/** How many change indexes past the next unused one a posted transaction may pay (a signer's own choice). */
const CHANGE_LOOKAHEAD = 20;

/** What the watch-only refund operations need. */
export interface WatchOnlyDeps {
  db: Db;
  chains: Pick<ChainService, 'forMode' | 'watch'>;
  spending: Pick<Spending, 'feeRate' | 'recordExternal'>;
  clock: () => number;
  /** Largest fee accepted on a posted refund transaction, satoshis (besides 5% of the amount). */
  feeCapSats: bigint;
}

function watchOnly(wallet: WalletRow): void {
  if (wallet.seed_sealed !== null) throw new DomainError('invalid', 'Wrong or missing argument: this wallet is held by the service, which signs and sends its refunds itself');
}

async function scheduled(db: Db, walletId: bigint) {
  return db.kysely
    .selectFrom('refunds')
    .select(['id', 'address', 'script_hex', 'amount_sats'])
    .where('wallet_id', '=', walletId)
    .where('state', '=', 'scheduled')
    .where('spend_id', 'is', null)
    .where('address', 'is not', null)
    .orderBy('id')
    .execute();
}

/** GET /refunds/psbt: the unsigned PSBT paying every scheduled refund of the wallet. */
export async function refundPsbt(deps: WatchOnlyDeps, wallet: WalletRow) {
  watchOnly(wallet);
  const refunds = await scheduled(deps.db, wallet.id);
  if (refunds.length === 0) throw new DomainError('invalid', 'Wrong or missing argument: this wallet has no scheduled refunds waiting for a transaction');
  const network = wallet.network as Network;
  const walletKey = walletKeyOf(wallet, network);
  const rate = await deps.spending.feeRate(wallet.mode);
  const { coins, changeIndex } = await deps.db.kysely.transaction().execute(async (trx) => ({
    coins: await spendableCoins(trx, wallet.id, inputSpecOf(walletKey)),
    changeIndex: await nextChangeIndex(trx, wallet.id),
  }));
  const change = walletKey.change(changeIndex);
  const outputs = refunds.map((r) => ({ script: Buffer.from(r.script_hex!, 'hex'), amount: r.amount_sats }));
  let selection;
  try {
    selection = selectCoins(coins, outputs, rate, change.script);
  } catch (err) {
    if (err instanceof InsufficientFundsError) throw new DomainError('invalid', `Wrong or missing argument: the wallet cannot pay its scheduled refunds: ${err.message}`);
    throw err;
  }
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
  return {
    psbt,
    fee: btcFromSats(selection.fee),
    fee_rate: Number(rate),
    refunds: refunds.map((r) => ({ refund_id: r.id.toString(), refund_addr: r.address!, refund_amount: btcFromSats(r.amount_sats) })),
  };
}

/** A one-key wallet's PSBT, with the key origin rules of bitcoin/key-origin.ts (unchanged for those wallets). */
function oneKeyPsbt(wallet: WalletRow, inputs: PsbtInput[], outputs: { script: Uint8Array; amount: bigint }[], change: { change?: { script: Uint8Array; amount: bigint; index: number } }): string {
  const key = parseExtendedPublicKey(wallet.pub);
  return buildWatchOnlyPsbt({ key, origin: wallet.key_origin ?? null, scriptType: wallet.script_type as ScriptType, inputs, outputs, ...change, testnet: key.testnet });
}

/**
 * What was posted as the signed transaction: one text, or the cosigners' partially signed PSBTs (a list, or
 * several PSBTs separated by white space, as pasted into the console) to be combined.
 */
function signedTexts(posted: unknown): string | string[] {
  const bad = (): never => {
    throw new DomainError('invalid', 'Wrong or missing argument: psbt (or tx) must be a signed PSBT in base64 or hex, a raw transaction in hex, or a list of the cosigners\' partially signed PSBTs');
  };
  if (Array.isArray(posted)) {
    if (posted.length === 0 || posted.length > 20) return bad();
    return posted.map((p) => (typeof p === 'string' && p.length > 0 && p.length <= 400_000 ? p : bad()));
  }
  if (typeof posted !== 'string' || posted.length === 0 || posted.length > 400_000) return bad();
  const parts = posted.trim().split(/\s+/);
  return parts.length > 1 && parts.length <= 20 && parts.every((p) => /^cHNidP/.test(p) || /^70736274ff/i.test(p)) ? parts : posted;
}

/** POST /refunds/signed: verifies, records and broadcasts a signed refund transaction of the wallet. */
export async function submitSignedRefund(deps: WatchOnlyDeps, wallet: WalletRow, signedText: unknown) {
  watchOnly(wallet);
  const texts = signedTexts(signedText);
  const refuse = (why: string): never => {
    throw new DomainError('invalid', `Wrong or missing argument: ${why}`);
  };
  let signed;
  try {
    signed = readSignedTransaction(texts);
  } catch (err) {
    if (err instanceof SpendRefusedError) return refuse(err.message);
    throw err;
  }
  const network = wallet.network as Network;
  const walletKey = walletKeyOf(wallet, network);
  const refunds = await scheduled(deps.db, wallet.id);
  const coins = await deps.db.kysely.transaction().execute((trx) => spendableCoins(trx, wallet.id, inputSpecOf(walletKey)));
  const byOutpoint = new Map(coins.map((c) => [`${c.txid}:${c.vout}`, c]));
  const inputs = signed.inputs.map((i) => byOutpoint.get(`${i.txid}:${i.vout}`) ?? refuse(`input ${i.txid}:${i.vout} is not a free coin of this wallet`));
  const inTotal = inputs.reduce((s, c) => s + c.value, 0n);

  // Every output is a distinct scheduled refund (address and amount) or change to the wallet's own key.
  const open = [...refunds];
  const paid: typeof refunds = [];
  let change: { script: Uint8Array; amount: bigint; index: number } | undefined;
  const firstChange = await deps.db.kysely.transaction().execute((trx) => nextChangeIndex(trx, wallet.id));
  for (const o of signed.outputs) {
    const hex = Buffer.from(o.script).toString('hex');
    const at = open.findIndex((r) => r.script_hex === hex && r.amount_sats === o.amount);
    if (at >= 0) {
      paid.push(open.splice(at, 1)[0]!);
      continue;
    }
    const index = change ? -1 : changeIndexOf(walletKey, o.script, firstChange);
    if (index < 0) refuse(`output ${addressFromScript(o.script, network) ?? hex} of ${btcFromSats(o.amount)} BTC is neither a scheduled refund nor change to this wallet`);
    change = { script: o.script, amount: o.amount, index };
  }
  if (paid.length === 0) refuse('the transaction pays none of the scheduled refunds');
  const outTotal = signed.outputs.reduce((s, o) => s + o.amount, 0n);
  const fee = inTotal - outTotal;
  const refundTotal = paid.reduce((s, r) => s + r.amount_sats, 0n);
  if (fee <= 0n) refuse('the transaction pays no fee');
  if (fee * 100n > refundTotal * 5n) refuse(`the fee of ${btcFromSats(fee)} BTC is more than 5% of the refunds it pays (${btcFromSats(refundTotal)} BTC)`);
  if (fee > deps.feeCapSats) refuse(`the fee of ${btcFromSats(fee)} BTC is above the configured cap of ${btcFromSats(deps.feeCapSats)} BTC`);

  const rejected = await mempoolRejects(deps, wallet.mode, signed.hex);
  if (rejected) refuse(`the node refuses this transaction: ${rejected}`);

  const ids = paid.map((r) => r.id);
  const record = await deps.spending.recordExternal(
    {
      walletId: wallet.id,
      purpose: 'refund',
      reference: `refunds:${ids.join(',')}`,
      txid: signed.txid,
      hex: signed.hex,
      fee,
      feeRate: fee / BigInt(signed.vsize),
      vsize: signed.vsize,
      changeAddressId: null,
      inputs: inputs.map((c) => ({ outputId: c.outputId, txid: c.txid, vout: c.vout, value: c.value })),
      outputs: signed.outputs.map((o) => ({
        address: addressFromScript(o.script, network) ?? '',
        scriptHex: Buffer.from(o.script).toString('hex'),
        amount: o.amount,
        change: change !== undefined && Buffer.from(change.script).equals(Buffer.from(o.script)),
      })),
    },
    async (trx, spend) => {
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
        await trx.updateTable('spends').set({ change_address_id: id }).where('id', '=', spend.id).execute();
        deps.chains.watch(wallet.mode as 'live' | 'test', change.script, { addressId: id, walletId: wallet.id });
      }
      const linked = await trx.updateTable('refunds').set({ spend_id: spend.id }).where('id', 'in', ids).where('spend_id', 'is', null).executeTakeFirst();
      if (linked.numUpdatedRows !== BigInt(ids.length)) throw new DomainError('invalid', 'Wrong or missing argument: a refund of this transaction was sent meanwhile');
    },
  );
  return { tx_id: record.txid, refunds: ids.map(String), fee: btcFromSats(fee) };
}

/**
 * Asks the node whether it would accept the transaction (Bitcoin Core's `testmempoolaccept`: a bad signature
 * is refused here, before anything is recorded). Nodes without the call (bcoin) are asked nothing: the
 * broadcaster then retries, and the operator sees the node's reason in `satgate spend list`.
 */
async function mempoolRejects(deps: WatchOnlyDeps, mode: string, hex: string): Promise<string | undefined> {
  const source = deps.chains.forMode(mode as 'live' | 'test').source;
  // Only a node answers testmempoolaccept; a light source's broadcast is the first check there.
  if (!(source instanceof RpcChainSource)) return undefined;
  const rpc = source.rpc;
  try {
    const [result] = await rpc.call<{ allowed?: boolean; 'reject-reason'?: string }[]>('testmempoolaccept', [[hex]]);
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
