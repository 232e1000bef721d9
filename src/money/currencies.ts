// ISO 4217 List One (maintenance agency SIX, amendments up to 2025): every active
// currency and fund code whose minor unit is a number. Codes with minor unit "N.A."
// (XAU, XAG, XPT, XPD, XDR, XSU, XUA, XBA..XBD, XTS, XXX) are not priceable and left out.
// Withdrawn codes (HRK 2023, ZWL 2024, SLL, CUC, MRO, STD, VEF) are left out too.

/** Minor-unit exponent of each active ISO 4217 code (JPY 0, USD 2, KWD 3, CLF 4). */
export const ISO_4217_MINOR_UNITS: Readonly<Record<string, number>> = Object.freeze({
  AED: 2, AFN: 2, ALL: 2, AMD: 2, ANG: 2, AOA: 2, ARS: 2, AUD: 2, AWG: 2, AZN: 2,
  BAM: 2, BBD: 2, BDT: 2, BGN: 2, BHD: 3, BIF: 0, BMD: 2, BND: 2, BOB: 2, BOV: 2,
  BRL: 2, BSD: 2, BTN: 2, BWP: 2, BYN: 2, BZD: 2,
  CAD: 2, CDF: 2, CHE: 2, CHF: 2, CHW: 2, CLF: 4, CLP: 0, CNY: 2, COP: 2, COU: 2,
  CRC: 2, CUP: 2, CVE: 2, CZK: 2,
  DJF: 0, DKK: 2, DOP: 2, DZD: 2,
  EGP: 2, ERN: 2, ETB: 2, EUR: 2,
  FJD: 2, FKP: 2,
  GBP: 2, GEL: 2, GHS: 2, GIP: 2, GMD: 2, GNF: 0, GTQ: 2, GYD: 2,
  HKD: 2, HNL: 2, HTG: 2, HUF: 2,
  IDR: 2, ILS: 2, INR: 2, IQD: 3, IRR: 2, ISK: 0,
  JMD: 2, JOD: 3, JPY: 0,
  KES: 2, KGS: 2, KHR: 2, KMF: 0, KPW: 2, KRW: 0, KWD: 3, KYD: 2, KZT: 2,
  LAK: 2, LBP: 2, LKR: 2, LRD: 2, LSL: 2, LYD: 3,
  MAD: 2, MDL: 2, MGA: 2, MKD: 2, MMK: 2, MNT: 2, MOP: 2, MRU: 2, MUR: 2, MVR: 2,
  MWK: 2, MXN: 2, MXV: 2, MYR: 2, MZN: 2,
  NAD: 2, NGN: 2, NIO: 2, NOK: 2, NPR: 2, NZD: 2,
  OMR: 3,
  PAB: 2, PEN: 2, PGK: 2, PHP: 2, PKR: 2, PLN: 2, PYG: 0,
  QAR: 2,
  RON: 2, RSD: 2, RUB: 2, RWF: 0,
  SAR: 2, SBD: 2, SCR: 2, SDG: 2, SEK: 2, SGD: 2, SHP: 2, SLE: 2, SOS: 2, SRD: 2,
  SSP: 2, STN: 2, SVC: 2, SYP: 2, SZL: 2,
  THB: 2, TJS: 2, TMT: 2, TND: 3, TOP: 2, TRY: 2, TTD: 2, TWD: 2, TZS: 2,
  UAH: 2, UGX: 0, USD: 2, USN: 2, UYI: 0, UYU: 2, UYW: 4, UZS: 2,
  VED: 2, VES: 2, VND: 0, VUV: 0,
  WST: 2,
  XAF: 0, XCD: 2, XCG: 2, XOF: 0, XPF: 0,
  YER: 2,
  ZAR: 2, ZMW: 2, ZWG: 2,
});

/** Decimal places of bitcoin (1 BTC = 100,000,000 satoshis); BTC is not an ISO 4217 code. */
export const BTC_DECIMALS = 8;

/** All fiat codes of the table, sorted (uppercase). */
export const ISO_4217_CODES: readonly string[] = Object.freeze(Object.keys(ISO_4217_MINOR_UNITS).sort());

/**
 * Decimals of an amount invoiced in `code`: ISO 4217's minor units, bitcoin's 8 for a BTC-denominated order
 * (Greenfield's "sats mode"), none for SATS. Throws on an unknown code.
 */
export function orderMinorUnits(code: string): number {
  const upper = code.toUpperCase();
  if (upper === 'BTC') return BTC_DECIMALS;
  if (upper === 'SATS') return 0;
  return minorUnits(upper);
}

/** True when `code` (exact uppercase) is an active, priceable ISO 4217 code. */
export function isIso4217(code: string): boolean {
  return Object.hasOwn(ISO_4217_MINOR_UNITS, code);
}

/** Minor-unit exponent of a fiat code, any case (JPY 0, USD 2, KWD 3); throws on an unknown code. */
export function minorUnits(code: string): number {
  const upper = code.toUpperCase();
  const units = Object.hasOwn(ISO_4217_MINOR_UNITS, upper) ? ISO_4217_MINOR_UNITS[upper] : undefined;
  if (units === undefined) throw new RangeError(`unknown ISO 4217 currency code ${JSON.stringify(code)}`);
  return units;
}

/** A well-formed currency code: three ASCII letters, any case (DESIGN.md: currency codes in any case). */
export function isCurrencyCode(value: string): boolean {
  return /^[A-Za-z]{3}$/.test(value);
}

/** Bitcoin's own names, which a client may put where a fiat code is due. */
const BITCOIN_CODES = new Set(['BTC', 'TESTBTC', 'XBT', 'SAT', 'SATS']);

/**
 * Why an uppercase `code` is no order currency, or null. Orders are priced in fiat; a bitcoin name is answered with
 * `whereBitcoinGoes`, the face's own words for where the bitcoin side of an order is given.
 */
export function orderCurrencyProblem(code: string, whereBitcoinGoes: string): string | null {
  if (BITCOIN_CODES.has(code)) {
    return `must be a fiat currency, a 3-letter ISO 4217 code such as "USD" or "EUR", not ${code}: orders are priced in fiat and ${whereBitcoinGoes}`;
  }
  if (!/^[A-Z]{3}$/.test(code) || !isIso4217(code)) return 'must be a 3-letter ISO 4217 currency code such as "USD" or "EUR"';
  return null;
}
