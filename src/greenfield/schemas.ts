// Greenfield shapes for the OpenAPI document (tag "Greenfield"), written from BTCPay's document in our words.
// They document; answers are written by invoice-json.ts / stores.ts and serialized as they are.
import { Type } from '@sinclair/typebox';

const Decimal = (description: string) => Type.String({ description: `${description} (a decimal as a JSON string)` });
const UnixSeconds = (description: string) => Type.Integer({ description: `${description} (Unix seconds)` });
const GfStatus = Type.Union(['New', 'Processing', 'Settled', 'Expired', 'Invalid'].map((s) => Type.Literal(s)));
const GfAdditional = Type.Union(['None', 'PaidPartial', 'PaidOver', 'PaidLate', 'Marked', 'Invalid'].map((s) => Type.Literal(s)));
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const S = {
  ApiKey: Type.Object({
    apiKey: Type.String({ description: 'the key of the request' }),
    label: Type.String(),
    permissions: Type.Array(Type.String({ description: 'policy:storeId, e.g. btcpay.store.canviewinvoices:live_…' })),
  }),
  ServerInfo: Type.Object({
    version: Type.String({ description: 'the Greenfield API level satgate is compatible with (BTCPay Server version numbering)' }),
    satgateVersion: Type.String({ description: "satgate's own version" }),
    onion: Type.String(),
    supportedPaymentMethods: Type.Array(Type.Literal('BTC-CHAIN')),
    fullySynched: Type.Boolean({ description: "the store's chain watcher has reached the node's tip and is not stalled" }),
    syncStatus: Type.Array(Type.Object({}, { additionalProperties: true })),
  }),
  Store: Type.Object(
    {
      id: Type.String({ description: "the wallet's API ID" }),
      name: Type.String(),
      website: Type.String(),
      defaultCurrency: Type.String(),
      invoiceExpiration: Type.Integer({ description: 'seconds' }),
      monitoringExpiration: Type.Integer({ description: 'seconds' }),
      speedPolicy: Type.String(),
      paymentTolerance: Type.Number(),
    },
    { additionalProperties: true },
  ),
  CreateInvoiceRequest: Type.Object(
    {
      amount: Type.Union([Type.String(), Type.Number()], { description: 'positive decimal in `currency` (BTC: up to 8 decimals, "sats mode")' }),
      currency: Type.Optional(Nullable(Type.String({ description: 'ISO 4217 code with a rate, or BTC; null: the store default' }))),
      metadata: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'free JSON object, echoed; orderId is searchable' })),
      checkout: Type.Optional(
        Type.Union([
          Type.Object(
            {
              speedPolicy: Type.Optional(Type.Union([Type.Literal('HighSpeed'), Type.Literal('MediumSpeed'), Type.Literal('LowMediumSpeed'), Type.Literal('LowSpeed'), Type.Null()], { description: 'confirmations: 0, 1, 2, 6' })),
              paymentMethods: Type.Optional(Type.Union([Type.Array(Type.String({ description: 'BTC, BTC-CHAIN, BTC_CHAIN or BTC-OnChain' })), Type.Null()])),
              expirationMinutes: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'default 15' })),
              monitoringMinutes: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'after expiration' })),
              paymentTolerance: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], { description: 'percent' })),
              redirectURL: Type.Optional(Nullable(Type.String())),
              redirectAutomatically: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
            },
            { additionalProperties: true, description: 'explicit null means the default' },
          ),
          Type.Null(),
        ]),
      ),
    },
    { additionalProperties: true },
  ),
  UpdateInvoiceRequest: Type.Object({ metadata: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]) }),
  MarkInvoiceRequest: Type.Object({ status: Type.Union([Type.Literal('Settled'), Type.Literal('Invalid')]) }),
  Invoice: Type.Object(
    {
      id: Type.String(),
      storeId: Type.String(),
      amount: Decimal('amount asked'),
      currency: Type.String(),
      type: Type.Literal('Standard'),
      checkoutLink: Type.String({ description: '/i/{invoiceId}, leading to the hosted payment page' }),
      createdTime: UnixSeconds('created'),
      expirationTime: UnixSeconds('expires'),
      monitoringExpiration: UnixSeconds('monitoring ends'),
      status: GfStatus,
      additionalStatus: GfAdditional,
      availableStatusesForManualMarking: Type.Array(GfStatus),
      archived: Type.Boolean(),
      metadata: Type.Object({}, { additionalProperties: true }),
      checkout: Type.Object({}, { additionalProperties: true }),
      paymentReference: Type.String({ description: "satgate's payment API v1 reference of the same payment" }),
    },
    { additionalProperties: true },
  ),
  InvoicePaymentMethod: Type.Object(
    {
      paymentMethodId: Type.Literal('BTC-CHAIN'),
      paymentMethod: Type.Literal('BTC-CHAIN'),
      currency: Type.Literal('BTC'),
      cryptoCode: Type.Literal('BTC'),
      destination: Type.String({ description: 'bitcoin address' }),
      paymentLink: Type.String({ description: 'BIP21 URI' }),
      rate: Decimal('order currency per BTC'),
      paymentMethodPaid: Decimal('BTC paid'),
      totalPaid: Decimal('BTC paid'),
      due: Decimal('BTC still due'),
      amount: Decimal('BTC asked'),
      networkFee: Decimal('fee added (always 0)'),
      paymentMethodFee: Decimal('fee added (always 0)'),
      payments: Type.Array(
        Type.Object({
          id: Type.String({ description: 'txid-vout' }),
          receivedDate: UnixSeconds('first seen'),
          value: Decimal('BTC'),
          fee: Decimal('BTC'),
          status: Type.Union([Type.Literal('Invalid'), Type.Literal('Processing'), Type.Literal('Settled')]),
          destination: Type.String(),
        }),
      ),
    },
    { additionalProperties: true },
  ),
  Errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: '422' }),
  Error: Type.Object({ code: Type.String(), message: Type.String() }),
};
