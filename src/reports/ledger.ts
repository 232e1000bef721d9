// The ledger as read for a report: rows of one wallet in a period, oldest first, read in keyset pages so an export
// of any size holds one page in memory.
import type { Db } from '../db/database.ts';
import { unitsToString } from '../money/decimal.ts';

/** One ledger row as exported; every amount a fixed-precision decimal string, every time ISO 8601 UTC. */
export interface LedgerRow {
  entry_id: string;
  at: string;
  kind: string;
  status: string;
  reverses_entry_id: string;
  reversal_reason: string;
  wallet: string;
  chain: string;
  txid: string;
  vout: string;
  address: string;
  reference_kind: string;
  reference: string;
  amount_btc: string;
  fee_btc: string;
  first_seen_at: string;
  confirmed_height: string;
  confirmed_at: string;
  late: string;
  paid: string;
  currency: string;
  rate: string;
  rate_source: string;
  rate_at: string;
  rate_estimated: string;
  fiat_value: string;
  locked_rate: string;
  invoiced_amount: string;
  invoiced_currency: string;
}

/** The exported columns, in their documented order (docs/reports.md); a new column only ever goes at the end. */
export const LEDGER_COLUMNS: readonly (keyof LedgerRow)[] = [
  'entry_id', 'at', 'kind', 'status', 'reverses_entry_id', 'reversal_reason', 'wallet', 'chain', 'txid', 'vout', 'address',
  'reference_kind', 'reference', 'amount_btc', 'fee_btc', 'first_seen_at', 'confirmed_height', 'confirmed_at', 'late', 'paid',
  'currency', 'rate', 'rate_source', 'rate_at', 'rate_estimated', 'fiat_value', 'locked_rate', 'invoiced_amount', 'invoiced_currency',
];

/** A row's money in satoshis, for totals (the exported strings stay exact decimals). */
export interface LedgerFigures {
  at: number;
  kind: string;
  amountSats: bigint;
  feeSats: bigint;
  fiat: string | null;
  confirmedAt: number | null;
  live: boolean;
  txid: string;
}

export const btcFixed = (sats: bigint) => unitsToString(sats, 8);
const iso = (ms: bigint | null) => (ms === null ? '' : new Date(Number(ms)).toISOString());

export interface LedgerQuery {
  walletId: bigint;
  apiId: string;
  /** Inclusive start and exclusive end, epoch ms. */
  from: number;
  to: number;
  pageSize?: number;
}

/** The period's rows oldest first, keyset-paginated on (at, id). */
export async function* ledgerRows(db: Db, q: LedgerQuery): AsyncGenerator<{ row: LedgerRow; figures: LedgerFigures }> {
  const pageSize = q.pageSize ?? 1000;
  let after: { at: bigint; id: bigint } | null = null;
  for (;;) {
    let query = db.kysely
      .selectFrom('ledger_entries as e')
      .leftJoin('ledger_entries as r', 'r.reverses_id', 'e.id')
      .selectAll('e')
      .select('r.id as reversed_by')
      .where('e.wallet_id', '=', q.walletId)
      .where('e.at', '>=', BigInt(q.from))
      .where('e.at', '<', BigInt(q.to));
    if (after) {
      const { at, id } = after;
      query = query.where((eb) => eb.or([eb('e.at', '>', at), eb.and([eb('e.at', '=', at), eb('e.id', '>', id)])]));
    }
    const page = await query.orderBy('e.at').orderBy('e.id').limit(pageSize).execute();
    for (const e of page) {
      const status = e.reverses_id !== null ? 'reversal' : e.reversed_by !== null ? 'reversed' : e.confirmed_height !== null ? 'confirmed' : 'unconfirmed';
      yield {
        row: {
          entry_id: String(e.id),
          at: iso(e.at),
          kind: e.kind,
          status,
          reverses_entry_id: e.reverses_id === null ? '' : String(e.reverses_id),
          reversal_reason: e.reason ?? '',
          wallet: q.apiId,
          chain: e.chain,
          txid: e.txid,
          vout: e.vout === null ? '' : String(e.vout),
          address: e.address,
          reference_kind: e.ref_kind ?? '',
          reference: e.ref ?? '',
          amount_btc: btcFixed(e.amount_sats),
          fee_btc: e.fee_sats === null ? '' : btcFixed(e.fee_sats),
          first_seen_at: iso(e.first_seen_at),
          confirmed_height: e.confirmed_height === null ? '' : String(e.confirmed_height),
          confirmed_at: iso(e.confirmed_at),
          late: e.late === 1n ? 'true' : 'false',
          paid: e.paid ?? '',
          currency: e.currency,
          rate: e.rate ?? '',
          rate_source: e.rate_source ?? '',
          rate_at: iso(e.rate_at),
          rate_estimated: e.rate_estimated === 1n ? 'true' : 'false',
          fiat_value: e.fiat_value ?? '',
          locked_rate: e.locked_rate ?? '',
          invoiced_amount: e.invoiced_amount ?? '',
          invoiced_currency: e.invoiced_currency ?? '',
        },
        figures: {
          at: Number(e.at),
          kind: e.kind,
          amountSats: e.amount_sats,
          feeSats: e.fee_sats ?? 0n,
          fiat: e.fiat_value,
          confirmedAt: e.confirmed_at === null ? null : Number(e.confirmed_at),
          live: e.reverses_id === null && e.reversed_by === null,
          txid: e.txid,
        },
      };
    }
    if (page.length < pageSize) return;
    const last = page[page.length - 1]!;
    after = { at: last.at, id: last.id };
  }
}
