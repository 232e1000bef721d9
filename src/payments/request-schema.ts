import { Type } from '@sinclair/typebox';
import { E164, FIELD_LIMITS } from './payment-request.ts';

const text = { maxLength: FIELD_LIMITS.text };
const url = { maxLength: FIELD_LIMITS.url };
const email = { maxLength: FIELD_LIMITS.email };

// Operation 26's body as OpenAPI shows it, with the limits payment-request.ts enforces (one source). The route checks bodies itself (payment-request.ts), reading
// amounts as exact decimals from the JSON text, so this schema documents the shape and validates nothing.
const Amount = Type.Union([Type.Number(), Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' })], {
  description:
    'an amount with at most the currency’s minor-unit decimals, as a JSON number (49.9) or a string of a plain decimal ("49.90"), read exactly; "1e3", " 5" and "5." are refused',
});

const Cart = Type.Object(
  {
    items: Type.Array(
      Type.Object({
        amount: Amount,
        quantity: Type.Integer({ minimum: 1 }),
        label: Type.String({ minLength: 1, ...text }),
        sku: Type.String({ minLength: 1, ...text }),
      }),
    ),
    shipping_cost: Amount,
    shipping_discount: Amount,
    tax_cost: Amount,
  },
  { description: 'every field required; Σ items.amount + shipping_cost − shipping_discount + tax_cost must equal order_amount' },
);

/** The documented body of POST /api/v1/payment/request (INTERFACE.md 4.4). */
export const PaymentRequestBody = Type.Object({
  type: Type.Union([Type.Literal('custom'), Type.Literal('hosted')], { description: '`custom` integration, or the `hosted` payment page' }),
  api_id: Type.String({ maxLength: FIELD_LIMITS.apiId, description: 'wallet receiving the funds (live_… or test_…)' }),
  crypto_currency: Type.Union([Type.Literal('BTC'), Type.Literal('testBTC')], { description: 'BTC for live API IDs, testBTC for sandbox ones' }),
  order_currency: Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217 code with a current exchange rate' }),
  order_amount: Type.Union([Type.Number(), Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' })], {
    description:
      'positive, worth at least the dust limit (0.00000546 BTC) and at most 21,000,000 BTC at the rate; a JSON number or a plain decimal string ("49.90"), read exactly',
  }),
  payer_id: Type.String({ ...text, description: 'unique per payer; the payer’s e-mail if there is no other ID' }),
  notify_email: Type.Optional(Type.String({ format: 'email', ...email })),
  notify_url: Type.Optional(Type.String({ ...url, description: 'webhook URL (http/https, not a loopback or private address)' })),
  webhook_data: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'a JSON object, passed through to webhooks' })),
  payer_name: Type.Optional(Type.String(text)),
  payer_email: Type.Optional(Type.String({ format: 'email', ...email })),
  payer_phone: Type.Optional(Type.String({ pattern: E164.source, description: 'E.164' })),
  cart: Type.Optional(Cart),
  payer_ip: Type.Optional(Type.String({ maxLength: FIELD_LIMITS.ip, description: 'custom type: the payer’s IPv4 or IPv6 address' })),
  success_url: Type.Optional(Type.String({ ...url, description: 'hosted type: redirect after payment' })),
  cancel_url: Type.Optional(Type.String({ ...url, description: 'hosted type: redirect on cancel' })),
});
