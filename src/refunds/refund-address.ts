/** Operation 25 and the refund page's data: the payer names the address, once. */
import type { Db } from '../db/database.ts';
import { lockRow } from '../db/row-locks.ts';
import { DomainError } from '../core/domain-errors.ts';
import { decodeAddressFor, InvalidAddressError } from '../bitcoin/address.ts';
import type { Network } from '../bitcoin/networks.ts';
import { btcFromSats } from '../money/money.ts';
import { hashToken } from '../security/tokens.ts';
import { dustThreshold } from '../spending/tx-size.ts';
import { publicStatus, transitionRefund, type RefundRow } from './refund-transitions.ts';

/** What op 25 and the page show of a refund. */
export interface RefundView {
  status: 'Scheduled' | 'Processing';
  tx_id: string;
  refund_amount: string;
  refund_addr: string;
  /** The wallet's network, so the page can say which addresses it takes. */
  network: Network;
  site_name: string;
  confirmed: boolean;
}

const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;

/** The refund of a form token, or undefined (unknown and malformed tokens read the same). */
export async function findByToken(db: Db, token: unknown): Promise<RefundRow | undefined> {
  if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
  return db.kysely.selectFrom('refunds').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
}

/** The public view of a refund. */
export async function refundView(db: Db, refund: RefundRow): Promise<RefundView> {
  const wallet = await db.kysely.selectFrom('wallets').select(['network', 'account_name']).where('id', '=', refund.wallet_id).executeTakeFirstOrThrow();
  const spend = refund.spend_id === null ? undefined : await db.kysely.selectFrom('spends').select(['txid', 'status']).where('id', '=', refund.spend_id).executeTakeFirst();
  return {
    status: publicStatus(refund.state),
    tx_id: refund.state === 'processing' || refund.state === 'confirmed' ? (spend?.txid ?? '') : '',
    refund_amount: btcFromSats(refund.amount_sats),
    refund_addr: refund.address ?? '',
    network: wallet.network as Network,
    site_name: wallet.account_name ?? '',
    confirmed: refund.state === 'confirmed',
  };
}

/** Sets the refund address of a form token: valid for the wallet's network, not dust, and only once. */
export async function setRefundAddress(
  db: Db,
  clock: () => number,
  token: unknown,
  address: unknown,
  languageOf?: (merchantDefault: string | null) => string,
): Promise<RefundRow> {
  const found = await findByToken(db, token);
  if (!found) throw new DomainError('invalid', 'Wrong or missing argument: refund_form_token is not a refund form token');
  if (typeof address !== 'string' || address.length === 0 || address.length > 100) {
    throw new DomainError('invalid', 'Wrong or missing argument: refund_addr must be a bitcoin address');
  }
  const wallet = await db.kysely.selectFrom('wallets').select(['id', 'network', 'default_language']).where('id', '=', found.wallet_id).executeTakeFirstOrThrow();
  let script: Uint8Array;
  try {
    script = decodeAddressFor(address, wallet.network as Network).script;
  } catch (err) {
    if (err instanceof InvalidAddressError) throw new DomainError('invalid', `Wrong or missing argument: refund_addr is not a valid ${wallet.network} address (${err.message})`);
    throw err;
  }
  if (found.amount_sats < dustThreshold(script)) throw new DomainError('invalid', 'Wrong or missing argument: the refund is too small to send to this kind of address');
  return db.kysely.transaction().execute(async (trx) => {
    await lockRow(trx, db, 'wallets', wallet.id);
    const refund = await trx.selectFrom('refunds').selectAll().where('id', '=', found.id).executeTakeFirstOrThrow();
    if (refund.address !== null) throw new DomainError('invalid', 'Wrong or missing argument: the refund address is already set and cannot be changed');
    const updated = await trx
      .updateTable('refunds')
      // The language the refund page was shown in (the payer's own choice, else the wallet's default, else the
      // browser's): the payer's later mail (the refund sent) is written in it. Without a page (the API alone), none.
      .set({ address, script_hex: Buffer.from(script).toString('hex'), ...(languageOf ? { payer_language: languageOf(wallet.default_language ?? null) } : {}) })
      .where('id', '=', refund.id)
      .where('address', 'is', null)
      .returningAll()
      .executeTakeFirstOrThrow();
    return transitionRefund(trx, updated, 'scheduled', 'address_set', clock());
  });
}
