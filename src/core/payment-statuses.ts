// The payment statuses of INTERFACE.md 3.1 and how they group, defined once: the status machine derives them,
// the hosted page's server view and its browser script (through the page's data block) read the groups from here.

/** Every payment API v1 status, in INTERFACE 3.1 order. */
export const PAYMENT_STATUSES = [
  'unpaid',
  'unconfirmed-less',
  'unconfirmed',
  'unconfirmed-more',
  'confirmed-less',
  'confirmed',
  'confirmed-more',
  'invalid',
] as const;

/** One payment status. */
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses by what the payer sees: the full amount seen, less than it seen, and no further change expected. */
export const PAYMENT_STATUS_GROUPS = {
  paidInFull: ['unconfirmed', 'unconfirmed-more', 'confirmed', 'confirmed-more'],
  paidLess: ['unconfirmed-less', 'confirmed-less'],
  final: ['confirmed', 'confirmed-more', 'invalid'],
} as const satisfies Record<string, readonly PaymentStatus[]>;
