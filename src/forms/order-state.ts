// The order state of a payment form or a set_addr order (INTERFACE.md 3.2 and 6.2, DESIGN.md section 9),
// derived from scratch from the order, its rate locks, its transactions and the clock. Pure: no database.
//
// Valuation: each output is valued at the rate of the latest lock taken at or before it was first seen
// (the first lock, or a refresh) when it was seen while that lock held; seen after the lock ran out, at the
// spot rate recorded when it was first seen (DESIGN.md section 6). A refresh locks the current rate for what is still due; the sats due
// in a lock period are ceil(remainder at the lock / its rate), so paying them always lands on "paid".
// Comparison (as for payment API v1): V = exact sum of output values, A = order amount, W = one
// satoshi's worth at the highest rate used. less iff V <= A - W, more iff V >= A + W, else equal.
//
// order_status: `pending` (internal: nothing received, lock still running), `paid`, `paid_too_much`,
// `failed_paid_too_little` (received less: the payer may pay again; a form can be refreshed once its
// lock ran out), `failed` (nothing received by the end of the lock). An order without an amount
// (set_addr without payload) is `paid` by any funds.
// payment_status: `unconfirmed` while any transaction awaits the required confirmations, or while the
// order is still pending (in processing); `confirmed` otherwise.
import { divideRounded, parseDecimal, rescale, unitsToString } from '../money/decimal.ts';
import { SATS_PER_BTC } from '../money/money.ts';

/** Every order status; `pending` is never sent in a notification body as is (see notification-body.ts). */
export const ORDER_STATUSES = ['pending', 'paid', 'paid_too_much', 'failed_paid_too_little', 'failed'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type PaymentStatus = 'unconfirmed' | 'confirmed';

/** A rate fixed for the order from `lockedAt` until `expiresAt` (epoch ms); rate = order currency per BTC. */
export interface OrderLock {
  rate: string;
  lockedAt: number;
  expiresAt: number;
}

/** One output paying the order's address. */
export interface OrderOutput {
  txid: string;
  vout: number;
  sats: bigint;
  firstSeenAt: number;
  confirmations: number;
  /** Spot rate when first seen; required when first seen after the lock in force then had run out. */
  spotRate?: string;
}

export interface OrderStateInput {
  /** Exact decimal, or null for an order without an amount. */
  orderAmount: string | null;
  /** At least one, oldest first. */
  locks: readonly OrderLock[];
  outputs: readonly OrderOutput[];
  now: number;
  requiredConfirmations: number;
  /** When an order with nothing received fails; default the end of the latest lock (a set_addr order: its reservation). */
  closesAt?: number;
}

/** One transaction of the order, as notifications list it. */
export interface OrderTransaction {
  txid: string;
  sats: bigint;
  confirmations: number;
  confirmed: boolean;
}

export interface OrderState {
  orderStatus: OrderStatus;
  paymentStatus: PaymentStatus;
  /** The current (latest) lock has run out. */
  expired: boolean;
  /** A refresh would re-price what is still due: partly paid and the lock ran out. */
  canRefresh: boolean;
  confirmedSats: bigint;
  unconfirmedSats: bigint;
  /** Sats asked for in the current lock period (for the first lock: the whole amount). */
  lockSats: bigint;
  /** Sats still to send in the current lock period (0 when nothing is due). */
  dueSats: bigint;
  /** Order-currency value still due, rounded up to `minorUnits` ("0" when none). */
  remainingOrderAmount: string;
  /** Order-currency value received, rounded half-up to `minorUnits`. */
  paidOrderAmount: string;
  transactions: OrderTransaction[];
}

/** Derives the order state at `input.now`; `minorUnits` is the order currency's precision for reported amounts. */
export function deriveOrderState(input: OrderStateInput, minorUnits: number): OrderState {
  if (input.locks.length === 0) throw new RangeError('an order needs at least one rate lock');
  if (!Number.isInteger(input.requiredConfirmations) || input.requiredConfirmations < 1) throw new RangeError('bad requiredConfirmations');
  const locks = input.locks.map((l) => ({ ...l, d: parseDecimal(l.rate, { allowLeadingZeros: true }) }));
  if (locks.some((l) => l.d.units === 0n)) throw new RangeError('rate must be positive');
  const funded = input.outputs.filter((o) => o.sats > 0n);
  const lockIndexOf = (at: number): number => {
    let idx = 0;
    locks.forEach((l, i) => {
      if (l.lockedAt <= at) idx = i;
    });
    return idx;
  };
  const late = (o: OrderOutput) => o.firstSeenAt >= locks[lockIndexOf(o.firstSeenAt)]!.expiresAt;
  const spot = new Map<OrderOutput, ReturnType<typeof parseDecimal>>();
  for (const o of funded) {
    if (!late(o)) continue;
    if (o.spotRate === undefined) throw new RangeError(`output ${o.txid}:${o.vout} first seen after its lock ran out has no spot rate`);
    const d = parseDecimal(o.spotRate, { allowLeadingZeros: true });
    if (d.units === 0n) throw new RangeError('rate must be positive');
    spot.set(o, d);
  }
  const order = input.orderAmount === null ? null : parseDecimal(input.orderAmount, { allowLeadingZeros: true });
  const scale = Math.max(order?.scale ?? 0, ...locks.map((l) => l.d.scale), ...[...spot.values()].map((d) => d.scale));
  const units = (d: { units: bigint; scale: number }) => rescale(d, scale, 'down').units;
  const rateUnits = locks.map((l) => units(l.d));
  const current = locks.length - 1;
  // The rate an output is valued at, as units of 10^-scale.
  const rateOf = (o: OrderOutput) => (spot.has(o) ? units(spot.get(o)!) : rateUnits[lockIndexOf(o.firstSeenAt)]!);
  // Values in units of 1 / (1e8 * 10^scale) of the order currency.
  const valueOf = (o: OrderOutput) => o.sats * rateOf(o);
  const target = order === null ? 0n : units(order) * SATS_PER_BTC;
  const oneSatWorth = [...funded.map(rateOf), rateUnits[current]!].reduce((m, r) => (r > m ? r : m), 0n);

  let confirmedSats = 0n;
  let unconfirmedSats = 0n;
  let value = 0n;
  const byTx = new Map<string, OrderTransaction>();
  for (const o of funded) {
    const confirmed = o.confirmations >= input.requiredConfirmations;
    if (confirmed) confirmedSats += o.sats;
    else unconfirmedSats += o.sats;
    value += valueOf(o);
    const tx = byTx.get(o.txid) ?? { txid: o.txid, sats: 0n, confirmations: o.confirmations, confirmed };
    tx.sats += o.sats;
    byTx.set(o.txid, tx);
  }
  const transactions = [...byTx.values()];

  const expired = input.now >= locks[current]!.expiresAt;
  const closed = input.now >= (input.closesAt ?? locks[current]!.expiresAt);
  let orderStatus: OrderStatus;
  if (funded.length === 0) orderStatus = closed ? 'failed' : 'pending';
  else if (order === null) orderStatus = 'paid';
  else if (value <= target - oneSatWorth) orderStatus = 'failed_paid_too_little';
  else if (value >= target + oneSatWorth) orderStatus = 'paid_too_much';
  else orderStatus = 'paid';
  const awaiting = transactions.some((t) => !t.confirmed);
  const paymentStatus: PaymentStatus = awaiting || orderStatus === 'pending' ? 'unconfirmed' : 'confirmed';

  // What the current lock asks for: the remainder when it was taken, at its rate, rounded up.
  let lockSats = 0n;
  let dueSats = 0n;
  let remaining = 0n;
  if (order !== null) {
    const currentLock = locks[current]!;
    const before = funded.filter((o) => o.firstSeenAt < currentLock.lockedAt).reduce((s, o) => s + valueOf(o), 0n);
    const remainderAtLock = target - before;
    // remainder / rate in sats: (units / 10^scale) / (rateUnits / 10^scale) * 1e8 = units_value / rateUnits.
    lockSats = remainderAtLock > 0n ? divideRounded(remainderAtLock, rateUnits[current]!, 'up') : 0n;
    const since = funded.filter((o) => o.firstSeenAt >= currentLock.lockedAt).reduce((s, o) => s + o.sats, 0n);
    dueSats = orderStatus === 'failed_paid_too_little' || orderStatus === 'pending' ? (lockSats > since ? lockSats - since : 0n) : 0n;
    remaining = target > value ? target - value : 0n;
  }
  const denominator = SATS_PER_BTC * 10n ** BigInt(scale);
  const money = (v: bigint, mode: 'up' | 'half-up') => unitsToString(divideRounded(v * 10n ** BigInt(minorUnits), denominator, mode), minorUnits);
  return {
    orderStatus,
    paymentStatus,
    expired,
    canRefresh: expired && orderStatus === 'failed_paid_too_little',
    confirmedSats,
    unconfirmedSats,
    lockSats,
    dueSats,
    remainingOrderAmount: money(remaining, 'up'),
    paidOrderAmount: money(value, 'half-up'),
    transactions,
  };
}
