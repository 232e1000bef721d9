// Operation 26's body (INTERFACE.md 4.4): every field checked, every bad field reported at once.
// Amounts are exact decimals read from the JSON text; nothing here touches the database.
import { isIP } from 'node:net';
import type { FieldProblem } from '../core/errors.ts';
import { minorUnits, orderCurrencyProblem } from '../money/currencies.ts';
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue } from '../money/exact-json.ts';
import { isEmail, isHttpUrl } from '../wallets/field-rules.ts';
import { canonicalJson } from '../money/canonical-json.ts';
import { amountRangeProblem } from '../money/amount-bounds.ts';
import { readAmountInput } from '../money/amount-input.ts';

/** The two request types; `hosted` stands for the hosted payment page. */
export type PaymentType = 'custom' | 'hosted';

/** A checked payment request. Amounts are decimal strings; `cart` and `webhook_data` are canonical JSON text. */
export interface PaymentRequestInput {
  type: PaymentType;
  api_id: string;
  crypto_currency: 'BTC' | 'testBTC';
  order_currency: string;
  order_amount: string;
  notify_email: string | null;
  notify_url: string | null;
  webhook_data_json: string | null;
  payer_id: string;
  payer_name: string | null;
  payer_email: string | null;
  payer_phone: string | null;
  payer_ip: string | null;
  success_url: string | null;
  cancel_url: string | null;
  cart_json: string | null;
}

/** E.164: a plus, a non-zero digit, at most 15 digits in all. */
export const E164 = /^\+[1-9]\d{1,14}$/;

/** Longest accepted text, URL and e-mail fields; request-schema.ts documents the same numbers from here. */
export const FIELD_LIMITS = { text: 256, url: 2048, email: 254, apiId: 100, code: 16, phone: 16, ip: 64 } as const;
const MAX_TEXT: number = FIELD_LIMITS.text;
const MAX_URL: number = FIELD_LIMITS.url;
/** Every field operation 26 reads (both types); anything else is refused, not ignored. */
const KNOWN_FIELDS = new Set([
  'type', 'api_id', 'crypto_currency', 'order_currency', 'order_amount', 'notify_email', 'notify_url', 'webhook_data',
  'payer_id', 'payer_name', 'payer_email', 'payer_phone', 'cart', 'payer_ip', 'success_url', 'cancel_url',
]);

/** The currency an API ID pays in: `BTC` for live IDs, `testBTC` for sandbox ones. */
export function cryptoCurrencyOf(apiId: string): 'BTC' | 'testBTC' | null {
  if (apiId.startsWith('live_')) return 'BTC';
  if (apiId.startsWith('test_')) return 'testBTC';
  return null;
}

/**
 * Checks an operation 26 body. `isSupportedCurrency` says whether a rate exists for an ISO code.
 * Returns the request, or every problem found (field paths like `cart.items[0].amount`).
 */
export function checkPaymentRequest(
  body: JsonValue | undefined,
  isSupportedCurrency: (code: string) => boolean,
): { ok: true; request: PaymentRequestInput } | { ok: false; errors: FieldProblem[] } {
  if (!isJsonObject(body)) return { ok: false, errors: [{ field: 'request', message: 'must be a JSON object' }] };
  const errors: FieldProblem[] = [];
  const bad = (field: string, message: string) => errors.push({ field, message });
  // Strict: a string is a string (null is not an absent field), taken as sent, never trimmed.
  const text = (field: string, required: boolean, max = MAX_TEXT): string | null => {
    const v = body[field];
    if (v === undefined) {
      if (required) bad(field, 'is required');
      return null;
    }
    if (typeof v !== 'string') return bad(field, v === null ? 'must be a string, not null' : 'must be a string'), null;
    if (v === '') return required ? (bad(field, 'must not be empty'), null) : null;
    if (v !== v.trim()) return bad(field, 'must not start or end with whitespace'), null;
    if (v.length > max) return bad(field, `must be at most ${max} characters`), null;
    return v;
  };
  for (const key of Object.keys(body)) if (!KNOWN_FIELDS.has(key)) bad(key, 'is not a field of this operation');

  const typeRaw = text('type', true);
  const type: PaymentType | null = typeRaw === 'custom' || typeRaw === 'hosted' ? typeRaw : null;
  if (typeRaw !== null && type === null) bad('type', 'must be "custom" or "hosted"');

  const apiId = text('api_id', true, FIELD_LIMITS.apiId);
  const cryptoRaw = text('crypto_currency', true, FIELD_LIMITS.code);
  let crypto: 'BTC' | 'testBTC' | null = null;
  if (cryptoRaw !== null) {
    const upper = cryptoRaw.toUpperCase();
    crypto = upper === 'BTC' ? 'BTC' : upper === 'TESTBTC' ? 'testBTC' : null;
    const expected = apiId === null ? null : cryptoCurrencyOf(apiId);
    if (crypto === null) bad('crypto_currency', 'must be "BTC" (live API IDs) or "testBTC" (sandbox API IDs)');
    else if (expected !== null && crypto !== expected) {
      bad('crypto_currency', `must be "${expected}" for ${expected === 'BTC' ? 'a live' : 'a sandbox'} API ID`);
    }
  }

  const currencyRaw = text('order_currency', true, FIELD_LIMITS.code);
  let currency: string | null = null;
  if (currencyRaw !== null) {
    const upper = currencyRaw.toUpperCase();
    const notFiat = orderCurrencyProblem(upper, 'the bitcoin amount is worked out at the exchange rate and answered as crypto_amount; "BTC" or "testBTC" goes in crypto_currency');
    if (notFiat !== null) bad('order_currency', notFiat);
    else if (!isSupportedCurrency(upper)) bad('order_currency', `${upper} has no exchange rate on this service`);
    else currency = upper;
  }

  const orderAmount = amount(body.order_amount, 'order_amount', currency, true, bad);

  const notifyEmail = text('notify_email', false, FIELD_LIMITS.email);
  if (notifyEmail !== null && !isEmail(notifyEmail)) bad('notify_email', 'must be an e-mail address');
  const notifyUrl = url(text('notify_url', false, MAX_URL), 'notify_url', bad);
  const webhookData = body.webhook_data;
  // INTERFACE.md 4.4: webhook_data is an object passed through to the webhook; a string, number or array is not.
  if (webhookData !== undefined && !isJsonObject(webhookData)) bad('webhook_data', 'must be a JSON object');

  const payerId = text('payer_id', true);
  const payerName = text('payer_name', false);
  const payerEmail = text('payer_email', false, FIELD_LIMITS.email);
  if (payerEmail !== null && !isEmail(payerEmail)) bad('payer_email', 'must be an e-mail address');
  const payerPhone = text('payer_phone', false, FIELD_LIMITS.phone);
  if (payerPhone !== null && !E164.test(payerPhone)) bad('payer_phone', 'must be in E.164 format, like +14155550123');

  let payerIp: string | null = null;
  let successUrl: string | null = null;
  let cancelUrl: string | null = null;
  // A field of the other type is not ignored: it was sent for a reason, and unchecked it could hold anything.
  const foreign = type === 'custom' ? ['success_url', 'cancel_url'] : type === 'hosted' ? ['payer_ip'] : [];
  for (const field of foreign) if (body[field] !== undefined) bad(field, `is not a field of ${type} requests`);
  if (type === 'custom') {
    payerIp = text('payer_ip', true, FIELD_LIMITS.ip);
    if (payerIp !== null && isIP(payerIp) === 0) bad('payer_ip', 'must be an IPv4 or IPv6 address');
  } else if (type === 'hosted') {
    successUrl = url(text('success_url', true, MAX_URL), 'success_url', bad);
    cancelUrl = url(text('cancel_url', true, MAX_URL), 'cancel_url', bad);
  }

  const cart = body.cart === undefined ? null : checkCart(body.cart, currency, orderAmount, bad);

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    request: {
      type: type!,
      api_id: apiId!,
      crypto_currency: crypto!,
      order_currency: currency!,
      order_amount: orderAmount!,
      notify_email: notifyEmail,
      notify_url: notifyUrl,
      webhook_data_json: webhookData === undefined ? null : canonicalJson(webhookData),
      payer_id: payerId!,
      payer_name: payerName,
      payer_email: payerEmail,
      payer_phone: payerPhone,
      payer_ip: payerIp,
      success_url: successUrl,
      cancel_url: cancelUrl,
      cart_json: cart,
    },
  };
}

function url(value: string | null, field: string, bad: (f: string, m: string) => void): string | null {
  if (value === null) return null;
  if (!isHttpUrl(value)) return bad(field, 'must be an http or https URL'), null;
  return value;
}

/** Reads a money amount (JSON number or plain decimal string) as a plain decimal with at most the currency's decimals. */
function amount(
  v: JsonValue | undefined,
  field: string,
  currency: string | null,
  positive: boolean,
  bad: (f: string, m: string) => void,
): string | null {
  if (v === undefined) return bad(field, 'is required'), null;
  // A JSON number or a plain decimal string ("49.90"), both read exactly; "1e3", " 5" and "5." are refused.
  const read = readAmountInput(v);
  if ('problem' in read) return bad(field, read.problem), null;
  const textValue = read.decimal;
  if (textValue.startsWith('-')) return bad(field, positive ? 'must be positive' : 'must not be negative'), null;
  if (positive && /^0(\.0*)?$/.test(textValue)) return bad(field, 'must be positive'), null;
  const [, frac = ''] = textValue.split('.');
  // Fiat only here (order_currency is an ISO code); an unknown code still gets the fiat digit bound.
  const range = amountRangeProblem(textValue, currency ?? '');
  if (range !== null) return bad(field, range), null;
  if (currency !== null && frac.length > minorUnits(currency)) {
    const units = minorUnits(currency);
    return bad(field, `must have at most ${units} decimal place${units === 1 ? '' : 's'} for ${currency}`), null;
  }
  return textValue;
}

/** Scaled integer of a decimal at `scale` (scale ≥ its own decimals). */
function units(decimal: string, scale: number): bigint {
  const [i = '0', f = ''] = decimal.split('.');
  return BigInt(i + f.padEnd(scale, '0'));
}

/** Checks the cart; returns its canonical JSON, or null after reporting problems. */
function checkCart(
  cart: JsonValue,
  currency: string | null,
  orderAmount: string | null,
  bad: (f: string, m: string) => void,
): string | null {
  if (!isJsonObject(cart)) return bad('cart', 'must be an object'), null;
  let ok = true;
  const fail = (f: string, m: string) => {
    ok = false;
    bad(f, m);
  };
  const items = cart.items;
  const amounts: string[] = [];
  if (!Array.isArray(items)) fail('cart.items', items === undefined ? 'is required' : 'must be an array');
  else {
    items.forEach((item, i) => {
      const at = `cart.items[${i}]`;
      if (!isJsonObject(item)) return fail(at, 'must be an object');
      const a = amount(item.amount, `${at}.amount`, currency, false, fail);
      if (a !== null) amounts.push(a);
      const q = item.quantity;
      if (q === undefined) fail(`${at}.quantity`, 'is required');
      else if (!(q instanceof JsonNumber) || !/^[1-9]\d{0,8}$/.test(q.toDecimal())) fail(`${at}.quantity`, 'must be a positive whole number');
      requiredText(item, 'label', at, fail);
      requiredText(item, 'sku', at, fail);
    });
  }
  const shipping = amount(cart.shipping_cost, 'cart.shipping_cost', currency, false, fail);
  const discount = amount(cart.shipping_discount, 'cart.shipping_discount', currency, false, fail);
  const tax = amount(cart.tax_cost, 'cart.tax_cost', currency, false, fail);
  if (!ok || currency === null || orderAmount === null || shipping === null || discount === null || tax === null) return null;

  const scale = minorUnits(currency);
  const total = amounts.reduce((s, a) => s + units(a, scale), 0n) + units(shipping, scale) - units(discount, scale) + units(tax, scale);
  if (total !== units(orderAmount, scale)) {
    const sign = total < 0n ? '-' : '';
    const abs = (total < 0n ? -total : total).toString().padStart(scale + 1, '0');
    const shown = scale === 0 ? abs : `${abs.slice(0, -scale)}.${abs.slice(-scale)}`;
    bad('cart', `items + shipping_cost - shipping_discount + tax_cost is ${sign}${shown}, not the order_amount ${orderAmount}`);
    return null;
  }
  return canonicalJson(cart);
}

function requiredText(obj: JsonObject, key: string, at: string, fail: (f: string, m: string) => void): void {
  const v = obj[key];
  if (v === undefined) fail(`${at}.${key}`, 'is required');
  else if (typeof v !== 'string' || v === '' || v !== v.trim()) fail(`${at}.${key}`, 'must be a non-empty string without surrounding whitespace');
  else if (v.length > MAX_TEXT) fail(`${at}.${key}`, `must be at most ${MAX_TEXT} characters`);
}
