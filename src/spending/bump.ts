/** Fee bumps (BIP125 replace-by-fee): the same coins and outputs, a higher fee taken from the change. */
import type { ScriptType } from '../bitcoin/script-type.ts';
import { buildSignedTx, type SignInput } from './build-tx.ts';
import { openSigner } from './wallet-signer.ts';
import { branchAndIndex, type SpendRow } from './spend-store.ts';
import { dustThreshold, txVsize } from './tx-size.ts';
import { SpendRefusedError } from './spending-errors.ts';
import type { SpendingDeps } from './spending.ts';

/**
 * Replaces the open spend with this txid by one paying the same outputs at `feeRate` sat/vB. BIP125 wants
 * a higher absolute fee that also pays for its own relay (1 sat/vB more); the change pays the difference
 * and is dropped to the fee when it would become dust.
 */
export async function bumpSpend(deps: SpendingDeps, txid: string, feeRate: bigint): Promise<SpendRow> {
  const spend = await deps.db.kysely.selectFrom('spends').selectAll().where('txid', '=', txid).executeTakeFirst();
  if (!spend) throw new SpendRefusedError(`no spend with txid ${txid}`);
  if (spend.kind !== 'signed') throw new SpendRefusedError('only spends the service signed can be bumped; re-sign a merchant transaction with a higher fee instead');
  if (spend.status !== 'signed' && spend.status !== 'broadcast') throw new SpendRefusedError(`spend ${txid} is ${spend.status}; only unconfirmed spends can be bumped`);
  if (feeRate <= spend.fee_rate) throw new SpendRefusedError(`the new fee rate must be above the current ${spend.fee_rate} sat/vB`);
  const wallet = await deps.db.kysely.selectFrom('wallets').selectAll().where('id', '=', spend.wallet_id).executeTakeFirstOrThrow();
  const child = await deps.db.kysely
    .selectFrom('spend_inputs as i')
    .innerJoin('chain_outputs as o', 'o.id', 'i.output_id')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .innerJoin('spends as s', 's.id', 'i.spend_id')
    .select('s.txid')
    .where('t.txid', '=', txid)
    .where('s.status', '!=', 'failed')
    .executeTakeFirst();
  if (child) throw new SpendRefusedError(`spend ${child.txid} already spends this spend's change; bump that one instead (child pays for parent)`);

  const inputs = await deps.db.kysely
    .selectFrom('spend_inputs as i')
    .innerJoin('chain_outputs as o', 'o.id', 'i.output_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .select(['i.txid', 'i.vout', 'i.value_sats', 'a.derivation_index', 'a.script_hex'])
    .where('i.spend_id', '=', spend.id)
    .orderBy('i.n')
    .execute();
  const outs = await deps.db.kysely.selectFrom('spend_outputs').selectAll().where('spend_id', '=', spend.id).orderBy('n').execute();
  const pay = outs.filter((o) => o.is_change === 0n).map((o) => ({ script: Buffer.from(o.script_hex, 'hex'), amount: o.amount_sats }));
  const change = outs.find((o) => o.is_change === 1n);
  const scriptType = wallet.script_type as ScriptType;
  const inTotal = inputs.reduce((s, i) => s + i.value_sats, 0n);
  const outTotal = pay.reduce((s, o) => s + o.amount, 0n);
  const types = inputs.map(() => scriptType);
  const changeScript = change ? Buffer.from(change.script_hex, 'hex') : undefined;
  const vsizeWith = txVsize(types, [...pay.map((p) => p.script.length), ...(changeScript ? [changeScript.length] : [])]);
  // BIP125 rule 4: the replacement pays the old fee plus 1 sat/vB of its own size at least.
  const size = BigInt(vsizeWith);
  const minRate = (spend.fee_sats + size + size - 1n) / size;
  const rate = feeRate > minRate ? feeRate : minRate;
  const fee = rate * size;
  const keepChange = changeScript !== undefined && inTotal - outTotal - fee >= dustThreshold(changeScript);
  if (!keepChange && inTotal - outTotal < fee) {
    throw new SpendRefusedError(`the spend's coins (${inTotal} sat) cannot pay its outputs (${outTotal} sat) and a fee of ${fee} sat`);
  }
  const signer = openSigner(wallet, deps.masterKey);
  let signed;
  try {
    const signInputs: SignInput[] = inputs.map((i) => {
      const p = branchAndIndex(i.derivation_index);
      return { txid: i.txid, vout: Number(i.vout), value: i.value_sats, script: Buffer.from(i.script_hex, 'hex'), scriptType, key: signer.child(p.branch, p.index) };
    });
    signed = buildSignedTx(signInputs, pay, rate, keepChange ? changeScript : undefined, fee);
  } finally {
    signer.wipe();
  }
  const changed = signed.change > 0n;
  const now = BigInt(deps.clock());
  return deps.db.kysely.transaction().execute(async (trx) => {
    await trx
      .insertInto('spend_replacements')
      .values({ spend_id: spend.id, txid: spend.txid, raw_hex: spend.raw_hex, fee_sats: spend.fee_sats, fee_rate: spend.fee_rate, replaced_at: now })
      .execute();
    await trx.deleteFrom('spend_outputs').where('spend_id', '=', spend.id).where('is_change', '=', 1n).execute();
    if (changed && change) {
      await trx
        .insertInto('spend_outputs')
        .values({ spend_id: spend.id, n: change.n, address: change.address, script_hex: change.script_hex, amount_sats: signed.change, is_change: 1n })
        .execute();
    }
    return trx
      .updateTable('spends')
      .set({
        txid: signed.txid,
        raw_hex: signed.hex,
        fee_sats: signed.fee,
        fee_rate: rate,
        vsize: BigInt(signed.vsize),
        status: 'signed',
        change_address_id: changed ? spend.change_address_id : null,
        updated_at: now,
      })
      .where('id', '=', spend.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}
