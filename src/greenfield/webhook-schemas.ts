// Greenfield webhook and pull-payment shapes for validation and the OpenAPI document (tag "Greenfield"), written
// from BTCPay's swagger.template.webhooks.json and swagger.template.pull-payments.json and from what the PHP client
// sends and reads, in our own words.
import { Type } from '@sinclair/typebox';

const EventName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z]+$', description: 'a Greenfield event type, e.g. InvoiceSettled' });

const AuthorizedEventsIn = Type.Object(
  {
    everything: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'all events of the store (default true)' })),
    specificEvents: Type.Optional(Type.Union([Type.Array(EventName, { maxItems: 64 }), Type.Null()], { description: 'the events wanted when everything is false' })),
  },
  { additionalProperties: false },
);

/** The body of POST and PUT …/webhooks: BTCPay's WebhookDataCreate / WebhookDataUpdate. */
export const WebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'where deliveries are POSTed (http or https; internal addresses are refused)' }),
    enabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'default true' })),
    automaticRedelivery: Type.Optional(
      Type.Union([Type.Boolean(), Type.Null()], { description: 'default true: failed deliveries are retried on satgate’s schedule (1 min, 5 min, 30 min, 2 h, 6 h, then every 12 h for 3 days)' }),
    ),
    authorizedEvents: Type.Optional(Type.Union([AuthorizedEventsIn, Type.Null()])),
    secret: Type.Optional(
      Type.Union([Type.String({ maxLength: 512 }), Type.Null()], { description: 'HMAC key of BTCPay-Sig; left out, null or empty: generated on creation, unchanged on update' }),
    ),
    // BTCPay's WebhookDataBase has an id; clients that echo a webhook back may send it. It is ignored.
    id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** A webhook as answered. */
export const WebhookData = Type.Object({
  id: Type.String({ description: 'opaque id' }),
  enabled: Type.Boolean(),
  automaticRedelivery: Type.Boolean(),
  url: Type.String(),
  authorizedEvents: Type.Object({ everything: Type.Boolean(), specificEvents: Type.Array(Type.String()) }),
});

/** A webhook as creation answers it: with its secret, shown this once. */
export const WebhookCreated = Type.Intersect([WebhookData, Type.Object({ secret: Type.String({ description: 'the signing secret; shown only here' }) })]);

/** A delivery as answered. */
export const DeliveryData = Type.Object({
  id: Type.String(),
  timestamp: Type.Integer({ description: 'when the delivery was created (Unix seconds)' }),
  deliveryTime: Type.Integer({ description: 'when it was last attempted (Unix seconds; its creation before the first attempt)' }),
  httpCode: Type.Integer({ description: 'the last HTTP status received; 0 when none was' }),
  errorMessage: Type.String({ description: 'why the last attempt failed; empty when it did not' }),
  status: Type.Union([Type.Literal('HttpSuccess'), Type.Literal('HttpError'), Type.Literal('Failed'), Type.Literal('Pending')]),
});

/** The body of POST …/pull-payments as the PHP client sends it (the WooCommerce plugin's refunds). */
export const PullPaymentBody = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
    amount: Type.String({ minLength: 1, maxLength: 40, description: 'positive decimal string in `currency`' }),
    currency: Type.String({ minLength: 3, maxLength: 8, description: 'BTC, or the refunded invoice’s currency' }),
    period: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'ignored: a refund is claimed once' })),
    BOLT11Expiration: Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: 16 }), Type.Null()], { description: 'ignored (no Lightning)' })),
    autoApproveClaims: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'ignored: the payer’s address is the only step' })),
    startsAt: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    expiresAt: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    paymentMethods: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32 }), Type.Null()])),
    payoutMethods: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 32 }), Type.Null()])),
  },
  { additionalProperties: false },
);

/** A pull payment as answered (BTCPay's PullPaymentData); a refund's carries satgate's three refund fields. */
export const PullPaymentData = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  currency: Type.String(),
  amount: Type.String({ description: 'a decimal as a JSON string' }),
  period: Type.Optional(Type.Null()),
  BOLT11Expiration: Type.Integer(),
  autoApproveClaims: Type.Boolean(),
  archived: Type.Boolean(),
  viewLink: Type.String({ description: 'a refund: satgate’s refund page, where the payer enters the address; otherwise the public pull payment' }),
  startsAt: Type.Integer(),
  expiresAt: Type.Union([Type.Integer(), Type.Null()]),
  payoutMethods: Type.Array(Type.String()),
  invoiceId: Type.Optional(Type.String({ description: 'satgate’s, refunds only: the refunded invoice' })),
  refundedTransactionId: Type.Optional(Type.String({ description: 'satgate’s, refunds only: the payment transaction refunded' })),
  refundAmountBtc: Type.Optional(Type.String({ description: 'satgate’s, refunds only: the refund in BTC (a decimal as a JSON string)' })),
});

/** The states of a payout (BTCPay's PayoutState). */
export const PayoutState = Type.Union(['AwaitingApproval', 'AwaitingPayment', 'InProgress', 'Completed', 'Cancelled'].map((s) => Type.Literal(s)));

/** A payout as answered (BTCPay's PayoutData, with 1.x's paymentMethod, cryptoCode, amount, paymentMethodAmount). */
export const PayoutData = Type.Object({
  id: Type.String(),
  revision: Type.Integer(),
  pullPaymentId: Type.String(),
  date: Type.Integer({ description: 'unix seconds' }),
  destination: Type.String(),
  originalCurrency: Type.String(),
  originalAmount: Type.String(),
  payoutCurrency: Type.String(),
  payoutAmount: Type.Union([Type.String(), Type.Null()]),
  payoutMethodId: Type.String(),
  paymentMethod: Type.String(),
  cryptoCode: Type.String(),
  amount: Type.String(),
  paymentMethodAmount: Type.Union([Type.String(), Type.Null()]),
  state: PayoutState,
  paymentProof: Type.Union([Type.Object({ proofType: Type.String(), transactionId: Type.String(), candidates: Type.Array(Type.String()) }), Type.Null()]),
  metadata: Type.Object({}, { additionalProperties: true }),
});

/** The payee's claim (BTCPay's CreatePayoutRequest; 1.x clients send paymentMethod). */
export const PayoutBody = Type.Object(
  {
    destination: Type.String({ minLength: 1, maxLength: 400, description: 'a bitcoin address or a BIP21 URI' }),
    amount: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()], { description: 'BTC; default: what is left of the pull payment (or the BIP21 amount)' })),
    payoutMethodId: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    paymentMethod: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  },
  { additionalProperties: false },
);

/** The store's own claim (BTCPay's CreatePayoutThroughStoreRequest). */
export const StorePayoutBody = Type.Object(
  {
    destination: Type.String({ minLength: 1, maxLength: 400, description: 'a bitcoin address or a BIP21 URI' }),
    amount: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()], { description: 'BTC; default: what is left of the pull payment (or the BIP21 amount)' })),
    payoutMethodId: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    paymentMethod: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    pullPaymentId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { description: 'required by satgate: the store’s pull payment claimed against' })),
    approved: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'approve at once (needs btcpay.store.cancreatepullpayments)' })),
    metadata: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
  },
  { additionalProperties: false },
);

/** Approval (BTCPay's ApprovePayoutRequest). */
export const ApproveBody = Type.Object(
  {
    revision: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    rateRule: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'ignored: payouts are in BTC' })),
  },
  { additionalProperties: false },
);
