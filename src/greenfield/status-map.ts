// The one mapping from satgate's payment status (INTERFACE.md 3.1) and a few facts about the invoice to
// Greenfield's `status` and `additionalStatus`. Pure; driven by status-vectors.json (its test) and printed in
// docs/greenfield.md. Where BTCPay keeps a status the chain later contradicts (a reorg that takes a confirmation back),
// satgate follows the chain: the chain is the truth.
import type { PaymentStatus } from '../core/payment-statuses.ts';

/** Greenfield invoice statuses. */
export type GreenfieldStatus = 'New' | 'Processing' | 'Settled' | 'Expired' | 'Invalid';
/** Greenfield additional statuses. */
export type GreenfieldAdditionalStatus = 'None' | 'PaidPartial' | 'PaidOver' | 'PaidLate' | 'Marked' | 'Invalid';

/** What the mapping reads. */
export interface StatusFacts {
  /** The payment's status (payment API v1). */
  payment: PaymentStatus;
  /** The invoice's expiration time has passed. */
  expired: boolean;
  /** The monitoring window has ended. */
  monitoringOver: boolean;
  /** Some counted funds were first seen at or after the expiration time. */
  fundsAfterExpiry: boolean;
  /** A short payment is within the invoice's paymentTolerance (counts as paid in full). */
  withinTolerance: boolean;
  /** Funds were seen at some time (a status with funds was once reached): their disappearance is a double spend or reorg. */
  everFunded: boolean;
  /** A manual marking (POST …/status), which overrides the chain's view. */
  marked: 'Settled' | 'Invalid' | null;
}

/** The Greenfield pair. */
export interface GreenfieldStatusPair {
  status: GreenfieldStatus;
  additionalStatus: GreenfieldAdditionalStatus;
}

const pair = (status: GreenfieldStatus, additionalStatus: GreenfieldAdditionalStatus = 'None'): GreenfieldStatusPair => ({ status, additionalStatus });

/** Maps the facts to Greenfield's status pair; rules in order, first match wins. */
export function greenfieldStatus(f: StatusFacts): GreenfieldStatusPair {
  // 1. A merchant's marking is final until the merchant marks again.
  if (f.marked !== null) return pair(f.marked, 'Marked');

  // 2. No counted funds. Funds that were seen and then vanished (double spend, reorg) end the invoice as Invalid
  //    once it can no longer be paid on time; an invoice that simply was not paid expires.
  if (f.payment === 'unpaid' || f.payment === 'invalid') {
    if (!f.expired && f.payment === 'unpaid') return pair('New');
    return f.everFunded ? pair('Invalid', 'Invalid') : pair('Expired');
  }

  const less = f.payment === 'unconfirmed-less' || f.payment === 'confirmed-less';
  // 3. Paid less than due (beyond the tolerance): still payable until expiry, then expired with the partial payment.
  if (less && !f.withinTolerance) return pair(f.expired ? 'Expired' : 'New', 'PaidPartial');

  // 4. Paid in full (or within tolerance). Completed by funds that came after expiry: BTCPay's "paid late".
  if (f.fundsAfterExpiry) return pair('Expired', 'PaidLate');
  const over = f.payment === 'unconfirmed-more' || f.payment === 'confirmed-more';
  const confirmed = f.payment.startsWith('confirmed');
  if (confirmed) return pair('Settled', over ? 'PaidOver' : 'None');
  // 5. Unconfirmed when monitoring ends: BTCPay gives up on the invoice (Invalid); a later confirmation settles it.
  if (f.monitoringOver) return pair('Invalid');
  return pair('Processing', over ? 'PaidOver' : 'None');
}

/** The statuses a merchant may mark an invoice with from a given status (BTCPay's availableStatusesForManualMarking). */
export function markableStatuses(current: GreenfieldStatus): GreenfieldStatus[] {
  if (current === 'Settled') return ['Invalid'];
  if (current === 'Invalid') return ['Settled'];
  return ['Settled', 'Invalid'];
}
