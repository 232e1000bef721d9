// The dashboard's chart data: what one of a profile's wallets received per UTC day (change of its own spends left out) over the last N days, in
// satoshis and in the wallet's local currency at the current rate (one rate for every day, so the bars compare
// amounts of bitcoin; the rate used is part of the answer).
import type { Db } from '../db/database.ts';
import { DomainError } from '../core/domain-errors.ts';
import { btcFromSats, satsToFiat } from '../money/money.ts';
import type { Rates } from '../rates/rates-port.ts';
import { profileWalletByApiId } from './accounts.ts';

const DAY_MS = 86_400_000;

/** One day of the chart. */
export interface ReceivedDay {
  /** YYYY-MM-DD (UTC). */
  day: string;
  sats: string;
  btc: string;
  /** Value in `currency` at `rate`; null without a current rate. */
  local: string | null;
}

/** The chart's data. */
export interface ReceivedPerDay {
  api_id: string;
  currency: string;
  rate: string | null;
  days: ReceivedDay[];
}

/** Credits (not withdrawn) to the wallet's addresses first seen in each of the last `days` UTC days, oldest first. */
export async function receivedPerDay(deps: { db: Db; clock: () => number; rates: Pick<Rates, 'spot'> }, profileId: bigint, apiId: string, days = 30): Promise<ReceivedPerDay> {
  if (!Number.isSafeInteger(days) || days < 1 || days > 366) throw new DomainError('invalid', 'Wrong or missing argument: days must be 1 to 366');
  const wallet = await profileWalletByApiId(deps.db, profileId, apiId);
  if (!wallet) throw new DomainError('not-found', 'No such wallet among yours');
  const today = Math.floor(deps.clock() / DAY_MS) * DAY_MS;
  const start = today - (days - 1) * DAY_MS;
  const rows = await deps.db.kysely
    .selectFrom('chain_outputs as o')
    .innerJoin('chain_txs as t', 't.id', 'o.tx_id')
    .innerJoin('addresses as a', 'a.id', 'o.address_id')
    .select(['o.value_sats', 't.first_seen_at'])
    .where('a.wallet_id', '=', wallet.id)
    .where('t.state', '!=', 'withdrawn')
    .where('t.first_seen_at', '>=', BigInt(start))
    // Change of the wallet's own spends (refunds, withdrawals) comes back to it; it was not received.
    .where('a.purpose', '!=', 'change')
    .execute();
  const perDay = new Array<bigint>(days).fill(0n);
  for (const r of rows) {
    const i = Math.floor((Number(r.first_seen_at) - start) / DAY_MS);
    if (i >= 0 && i < days) perDay[i]! += r.value_sats;
  }
  const currency = wallet.local_currency.toUpperCase();
  let rate: string | null = null;
  try {
    rate = (await deps.rates.spot(currency)).rate;
  } catch {
    // Without a current rate the chart still shows bitcoin amounts.
  }
  return {
    api_id: wallet.api_id,
    currency,
    rate,
    days: perDay.map((sats, i) => ({
      day: new Date(start + i * DAY_MS).toISOString().slice(0, 10),
      sats: sats.toString(),
      btc: btcFromSats(sats),
      local: rate === null ? null : satsToFiat(sats, rate, currency),
    })),
  };
}
