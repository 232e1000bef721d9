// Schemas of Greenfield answers, written for tests from BTCPay Server's OpenAPI document
// (btcpayserver/btcpayserver, BTCPayServer/wwwroot/swagger/v1/swagger.template.*.json: api-keys, serverinfo,
// stores, stores-payment-methods, invoices, webhooks, pull-payments) and tightened where the PHP client
// (btcpayserver/btcpayserver-greenfield-php, src/Result/*.php) reads more strictly: every decimal is a JSON string,
// every time an integer of Unix seconds, and a field the client reads with a non-nullable PHP type is required.
// Extra fields are allowed (satgate adds a few of its own; BTCPay's clients ignore unknown fields).
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** A decimal as a JSON string ("12.30", "-0.0001" for an overpaid `due`). */
const Decimal = Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$' });
const Unix = Type.Integer({ minimum: 1_000_000_000, maximum: 10_000_000_000 });
const Str = Type.String();
const Open = <T extends Record<string, TSchema>>(props: T) => Type.Object(props, { additionalProperties: true });

/** ApiKeyData. */
export const ApiKeyData = Open({ apiKey: Str, label: Str, permissions: Type.Array(Type.String({ pattern: '^btcpay\\.[a-z.]+:.+$' })) });

/** ApplicationServerInfoData (`fullySynched` read as a boolean, `version` compared with version_compare). */
export const ServerInfo = Open({
  version: Type.String({ pattern: '^[0-9]+(\\.[0-9]+){1,3}$' }),
  onion: Str,
  supportedPaymentMethods: Type.Array(Str),
  fullySynched: Type.Boolean(),
  syncStatus: Type.Array(Type.Object({}, { additionalProperties: true })),
});

/** StoreData (the fields the plugins read). */
export const StoreData = Open({ id: Str, name: Str });

/** GenericPaymentMethodData of GET …/payment-methods (the PHP client reads `enabled` and `paymentMethod(Id)`). */
export const StorePaymentMethod = Open({ enabled: Type.Boolean(), paymentMethodId: Str });

const InvoiceStatus = Type.Union(['New', 'Processing', 'Expired', 'Invalid', 'Settled'].map((s) => Type.Literal(s)));
const AdditionalStatus = Type.Union(['None', 'PaidLate', 'PaidPartial', 'Marked', 'Invalid', 'PaidOver'].map((s) => Type.Literal(s)));

/** InvoiceData. */
export const InvoiceData = Open({
  id: Str,
  storeId: Str,
  amount: Decimal,
  currency: Str,
  type: Type.Union([Type.Literal('Standard'), Type.Literal('TopUp')]),
  checkoutLink: Type.String({ pattern: '^https?://' }),
  createdTime: Unix,
  expirationTime: Unix,
  monitoringExpiration: Unix,
  status: InvoiceStatus,
  additionalStatus: AdditionalStatus,
  availableStatusesForManualMarking: Type.Array(InvoiceStatus),
  archived: Type.Boolean(),
  metadata: Type.Object({}, { additionalProperties: true }),
  checkout: Open({
    speedPolicy: Type.Union(['HighSpeed', 'MediumSpeed', 'LowMediumSpeed', 'LowSpeed'].map((s) => Type.Literal(s))),
    paymentMethods: Type.Array(Str),
    expirationMinutes: Type.Integer(),
    monitoringMinutes: Type.Integer(),
    paymentTolerance: Type.Number({ minimum: 0, maximum: 100 }),
    redirectURL: Type.Union([Str, Type.Null()]),
  }),
});

/** Payment (of an invoice payment method, and of InvoiceReceivedPayment / InvoicePaymentSettled events). */
export const Payment = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9a-f]{64}-[0-9]+$' }),
    receivedDate: Unix,
    value: Decimal,
    fee: Decimal,
    status: Type.Union([Type.Literal('Invalid'), Type.Literal('Processing'), Type.Literal('Settled')]),
    destination: Str,
  },
  { additionalProperties: false },
);

/** InvoicePaymentMethodDataModel (the PHP client reads every decimal as a string, networkFee ?? paymentMethodFee). */
export const InvoicePaymentMethod = Open({
  paymentMethodId: Str,
  currency: Str,
  destination: Str,
  paymentLink: Type.Union([Type.String({ pattern: '^bitcoin:' }), Type.Null()]),
  rate: Decimal,
  paymentMethodPaid: Decimal,
  totalPaid: Decimal,
  due: Decimal,
  amount: Decimal,
  paymentMethodFee: Decimal,
  payments: Type.Array(Payment),
  activated: Type.Boolean(),
});

/** WebhookData (the PHP client reads id, enabled, automaticRedelivery, url, authorizedEvents.everything and specificEvents). */
export const WebhookData = Open({
  id: Str,
  enabled: Type.Boolean(),
  automaticRedelivery: Type.Boolean(),
  url: Str,
  authorizedEvents: Type.Object({ everything: Type.Boolean(), specificEvents: Type.Array(Str) }, { additionalProperties: true }),
});

/** WebhookDataCreateResult: with its secret. */
export const WebhookCreated = Type.Intersect([WebhookData, Open({ secret: Type.String({ minLength: 1 }) })]);

const EventBase = {
  deliveryId: Str,
  webhookId: Str,
  originalDeliveryId: Str,
  isRedelivery: Type.Boolean(),
  timestamp: Unix,
  storeId: Str,
  invoiceId: Str,
  metadata: Type.Object({}, { additionalProperties: true }),
};
const PaymentEvent = { afterExpiration: Type.Boolean(), paymentMethodId: Str, payment: Payment };

/** The webhook bodies by type (WebhookInvoice*Event), every field of each type required. */
export const WebhookEvents: Record<string, TSchema> = {
  InvoiceCreated: Open({ ...EventBase, type: Type.Literal('InvoiceCreated') }),
  InvoiceReceivedPayment: Open({ ...EventBase, ...PaymentEvent, type: Type.Literal('InvoiceReceivedPayment') }),
  InvoicePaymentSettled: Open({ ...EventBase, ...PaymentEvent, type: Type.Literal('InvoicePaymentSettled') }),
  InvoiceProcessing: Open({ ...EventBase, type: Type.Literal('InvoiceProcessing'), overPaid: Type.Boolean() }),
  InvoiceExpired: Open({ ...EventBase, type: Type.Literal('InvoiceExpired'), partiallyPaid: Type.Boolean() }),
  InvoiceSettled: Open({ ...EventBase, type: Type.Literal('InvoiceSettled'), manuallyMarked: Type.Boolean(), overPaid: Type.Boolean() }),
  InvoiceInvalid: Open({ ...EventBase, type: Type.Literal('InvoiceInvalid'), manuallyMarked: Type.Boolean() }),
};

/** PullPaymentData (the WooCommerce plugin reads id and viewLink). */
export const PullPaymentData = Open({
  id: Str,
  name: Str,
  description: Str,
  currency: Str,
  amount: Decimal,
  archived: Type.Boolean(),
  viewLink: Type.String({ pattern: '^https?://' }),
});

/** Greenfield's error answers: 422 `[{path, message}]`, others `{code, message}`. */
export const ValidationErrors = Type.Array(Type.Object({ path: Str, message: Str }, { additionalProperties: false }), { minItems: 1 });
export const ApiError = Type.Object({ code: Str, message: Str }, { additionalProperties: true });

/** The schema's complaints about a value (empty when it conforms). */
export function schemaErrors(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].map((e) => `${e.path || '/'}: ${e.message} (${JSON.stringify(e.value)})`);
}
