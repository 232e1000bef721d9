// The body of POST /api/v1/stores/{storeId}/invoices, read as BTCPay's clients send it: `amount` a decimal string
// (or number, read exactly) in a fiat currency or in BTC (the plugins' "sats mode"), free `metadata`, and
// `checkout` settings. An explicit null means "the default" for every optional field, as the PHP client sends
// nulls for what the merchant left unset. Fields satgate does not use (requiresRefundEmail, …) are
// accepted and ignored: clients send them whether or not a server uses them. Pure; no database.
import { isJsonObject, JsonNumber, type JsonObject, type JsonValue } from '../money/exact-json.ts';
import { isIso4217, minorUnits, BTC_DECIMALS, orderMinorUnits } from '../money/currencies.ts';
import { isHttpUrl } from '../wallets/field-rules.ts';
import { canonicalJson } from '../money/canonical-json.ts';
import { compareDecimals } from '../money/decimal.ts';
import { btcFromSats } from '../money/money.ts';
import { amountRangeProblem } from '../money/amount-bounds.ts';
import type { GreenfieldFieldError } from './errors.ts';
import { languageNamed } from '../i18n/match.ts';
import { LANGUAGES } from '../i18n/languages.ts';

/** Greenfield's speed policies and the confirmations each needs. */
export const SPEED_POLICIES = { HighSpeed: 0, MediumSpeed: 1, LowMediumSpeed: 2, LowSpeed: 6 } as const;
/** One speed policy. */
export type SpeedPolicy = keyof typeof SPEED_POLICIES;

/** The one payment method: on-chain bitcoin, in BTCPay 2's spelling. */
export const ONCHAIN = 'BTC-CHAIN';
/** Every spelling of on-chain bitcoin the plugins send (BTCPay 1.x, 2.x, and the WooCommerce gateway symbols). */
const ONCHAIN_SPELLINGS = new Set(['BTC', 'BTC-CHAIN', 'BTC_CHAIN', 'BTC-ONCHAIN', 'BTC_ONCHAIN']);

/** Default invoice expiration (BTCPay's default as well). */
export const DEFAULT_EXPIRATION_MINUTES = 15;
const MAX_MINUTES = 60 * 24 * 90;
const MAX_URL = 2048;
const MAX_ORDER_ID = 256;

/** A checked invoice request; `currency` upper-case, `amount` as sent (a plain decimal). */
export interface InvoiceRequest {
  amount: string;
  currency: string;
  /** What the payment is denominated in: the currency, or BTC for an invoice in SATS. */
  orderCurrency: string;
  orderAmount: string;
  /** Canonical JSON of the metadata object ({} when absent). */
  metadataJson: string;
  orderId: string | null;
  buyerEmail: string | null;
  buyerName: string | null;
  speedPolicy: SpeedPolicy | null;
  expirationMinutes: number | null;
  monitoringMinutes: number | null;
  /** Percent as a decimal string; null: 0. */
  paymentTolerance: string | null;
  redirectURL: string | null;
  redirectAutomatically: boolean | null;
  defaultLanguage: string | null;
  /** The supported language `defaultLanguage` names (BTCPay's codes such as de-DE match de); null when none was given. */
  pageLanguage: string | null;
  requiresRefundEmail: boolean | null;
}

/** Whether a payment method name is on-chain bitcoin in one of its spellings. */
export function isOnchainMethod(name: string): boolean {
  return ONCHAIN_SPELLINGS.has(name.toUpperCase());
}

/**
 * Checks a body. `defaultCurrency` is the store's (used when currency is null or absent); `hasRate` says whether a
 * fiat code can be priced. Answers the request or every bad field at once.
 */
export function checkInvoiceRequest(
  body: JsonValue | undefined,
  defaultCurrency: string,
  hasRate: (code: string) => boolean,
): { ok: true; request: InvoiceRequest } | { ok: false; errors: GreenfieldFieldError[] } {
  if (!isJsonObject(body)) return { ok: false, errors: [{ path: '', message: 'The body must be a JSON object' }] };
  const errors: GreenfieldFieldError[] = [];
  const bad = (path: string, message: string) => errors.push({ path, message });

  // currency
  let currency: string | null = null;
  const c = body.currency;
  if (c === undefined || c === null) currency = defaultCurrency;
  else if (typeof c !== 'string') bad('currency', 'must be a string');
  else {
    const upper = c.toUpperCase();
    if (upper === 'BTC' || upper === 'SATS') currency = upper;
    else if (!/^[A-Z]{3}$/.test(upper) || !isIso4217(upper)) bad('currency', 'must be BTC or a 3-letter ISO 4217 currency code');
    else if (!hasRate(upper)) bad('currency', `${upper} has no exchange rate on this server`);
    else currency = upper;
  }

  // amount: a positive decimal within the amount bound, with at most the currency's decimals (8 for BTC)
  let amount: string | null = null;
  const a = body.amount;
  if (a === undefined || a === null) bad('amount', 'is required (invoices without an amount are not supported)');
  else {
    const text = typeof a === 'string' ? a : a instanceof JsonNumber ? safeDecimal(a) : null;
    if (text === null || !/^\d+(\.\d+)?$/.test(text)) bad('amount', 'must be a positive decimal number, like "12.50"');
    else if (/^0+(\.0+)?$/.test(text)) bad('amount', 'must be positive');
    else if (currency !== null) {
      const decimals = orderMinorUnits(currency);
      const frac = text.split('.')[1] ?? '';
      const range = amountRangeProblem(text, currency);
      if (range !== null) bad('amount', range);
      else if (frac.replace(/0+$/, '').length > decimals) bad('amount', `must have at most ${decimals} decimal places for ${currency}`);
      else amount = stripZeros(text);
    }
  }

  // metadata: any JSON object, echoed as sent
  let metadata: JsonObject = {};
  const m = body.metadata;
  if (m !== undefined && m !== null) {
    if (!isJsonObject(m)) bad('metadata', 'must be a JSON object');
    else metadata = m;
  }
  const orderId = scalarText(metadata.orderId);
  if (orderId !== null && orderId.length > MAX_ORDER_ID) bad('metadata.orderId', `must be at most ${MAX_ORDER_ID} characters`);
  const buyerEmail = typeof metadata.buyerEmail === 'string' && metadata.buyerEmail !== '' ? metadata.buyerEmail : null;
  const buyerName = typeof metadata.buyerName === 'string' && metadata.buyerName !== '' ? metadata.buyerName : null;

  // checkout
  const out: Omit<InvoiceRequest, 'amount' | 'currency' | 'orderCurrency' | 'orderAmount' | 'metadataJson' | 'orderId' | 'buyerEmail' | 'buyerName'> = {
    speedPolicy: null,
    expirationMinutes: null,
    monitoringMinutes: null,
    paymentTolerance: null,
    redirectURL: null,
    redirectAutomatically: null,
    defaultLanguage: null,
    pageLanguage: null,
    requiresRefundEmail: null,
  };
  const ck = body.checkout;
  if (ck !== undefined && ck !== null) {
    if (!isJsonObject(ck)) bad('checkout', 'must be a JSON object');
    else checkCheckout(ck, out, bad);
  }

  if (errors.length > 0) return { ok: false, errors };
  // SATS (BTCPay's satoshi unit) is paid as BTC: the amount moved 8 places, exactly.
  const sats = currency === 'SATS';
  return {
    ok: true,
    request: {
      amount: amount!,
      currency: currency!,
      orderCurrency: sats ? 'BTC' : currency!,
      orderAmount: sats ? btcFromSats(BigInt(amount!)) : amount!,
      metadataJson: canonicalJson(metadata),
      orderId,
      buyerEmail,
      buyerName,
      ...out,
    },
  };
}

function checkCheckout(ck: JsonObject, out: Partial<InvoiceRequest>, bad: (p: string, m: string) => void): void {
  const sp = ck.speedPolicy;
  if (sp !== undefined && sp !== null) {
    if (typeof sp !== 'string' || !Object.hasOwn(SPEED_POLICIES, sp)) bad('checkout.speedPolicy', 'must be HighSpeed, MediumSpeed, LowMediumSpeed or LowSpeed');
    else out.speedPolicy = sp as SpeedPolicy;
  }
  const pm = ck.paymentMethods;
  if (pm !== undefined && pm !== null) {
    if (!Array.isArray(pm)) bad('checkout.paymentMethods', 'must be an array of payment method ids');
    else {
      pm.forEach((name, i) => {
        if (typeof name !== 'string') bad(`checkout.paymentMethods[${i}]`, 'must be a string');
        else if (!isOnchainMethod(name)) bad(`checkout.paymentMethods[${i}]`, `${name} is not supported by this server; only on-chain bitcoin (${ONCHAIN})`);
      });
    }
  }
  const dpm = ck.defaultPaymentMethod;
  if (dpm !== undefined && dpm !== null && (typeof dpm !== 'string' || !isOnchainMethod(dpm))) {
    bad('checkout.defaultPaymentMethod', `must be ${ONCHAIN}`);
  }
  out.expirationMinutes = minutes(ck.expirationMinutes, 'checkout.expirationMinutes', 1, bad);
  out.monitoringMinutes = minutes(ck.monitoringMinutes, 'checkout.monitoringMinutes', 0, bad);
  const tol = ck.paymentTolerance;
  if (tol !== undefined && tol !== null) {
    const text = tol instanceof JsonNumber ? safeDecimal(tol) : null;
    if (text === null || !/^\d{1,3}(\.\d{1,8})?$/.test(text) || compareDecimals(text, '100') > 0) {
      bad('checkout.paymentTolerance', 'must be a number of percent from 0 to 100');
    } else out.paymentTolerance = stripZeros(text);
  }
  const url = ck.redirectURL;
  if (url !== undefined && url !== null) {
    if (typeof url !== 'string' || url.length > MAX_URL || !isHttpUrl(url)) bad('checkout.redirectURL', 'must be an http or https URL');
    else out.redirectURL = url;
  }
  out.redirectAutomatically = bool(ck.redirectAutomatically, 'checkout.redirectAutomatically', bad);
  out.requiresRefundEmail = bool(ck.requiresRefundEmail, 'checkout.requiresRefundEmail', bad);
  const lang = ck.defaultLanguage;
  if (lang !== undefined && lang !== null) {
    const supported = typeof lang === 'string' && lang.length <= 32 ? languageNamed(lang) : null;
    if (typeof lang !== 'string' || lang.length > 32) bad('checkout.defaultLanguage', 'must be a language code');
    else if (supported === null) bad('checkout.defaultLanguage', `must be a supported language (${LANGUAGES.map((l) => l.tag).join(', ')}); "${lang}" is not one`);
    else {
      out.defaultLanguage = lang;
      out.pageLanguage = supported;
    }
  }
}

function minutes(v: JsonValue | undefined, path: string, min: number, bad: (p: string, m: string) => void): number | null {
  if (v === undefined || v === null) return null;
  const text = v instanceof JsonNumber ? safeDecimal(v) : null;
  if (text === null || !/^\d{1,7}$/.test(text)) return bad(path, 'must be a whole number of minutes'), null;
  const n = Number.parseInt(text, 10);
  if (n < min || n > MAX_MINUTES) return bad(path, `must be from ${min} to ${MAX_MINUTES} minutes`), null;
  return n;
}

function bool(v: JsonValue | undefined, path: string, bad: (p: string, m: string) => void): boolean | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'boolean') return bad(path, 'must be true or false'), null;
  return v;
}

/** A JSON number's plain decimal text, or null when it is written with an exponent that does not reduce. */
function safeDecimal(n: JsonNumber): string | null {
  try {
    return n.toDecimal();
  } catch {
    return null;
  }
}

/** Metadata ids as text: a string, or a number written as sent (shops send order numbers both ways). */
function scalarText(v: JsonValue | undefined): string | null {
  if (typeof v === 'string') return v === '' ? null : v;
  if (v instanceof JsonNumber) return safeDecimal(v);
  return null;
}

/** "12.500" → "12.5", "10.00" → "10", "007" → "7". */
function stripZeros(text: string): string {
  let [i = '0', f = ''] = text.split('.');
  i = i.replace(/^0+(?=\d)/, '');
  f = f.replace(/0+$/, '');
  return f === '' ? i : `${i}.${f}`;
}
