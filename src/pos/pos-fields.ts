// The fields of a point of sale app as the merchant gives them (console form or Greenfield body), checked strictly:
// every problem at once, named by field, and nothing stored unless all are right. Prices are exact decimals in the
// app's currency (at most its minor units of decimals), stock counts whole numbers, tips whole percents.
import type { FieldProblem } from '../core/domain-errors.ts';
import { amountRangeProblem } from '../money/amount-bounds.ts';
import { isIso4217, orderMinorUnits } from '../money/currencies.ts';
import { supportedLanguage } from '../i18n/languages.ts';

/** One item as given; `code` is BTCPay's item id (made from the name when absent). */
export interface ItemInput {
  code?: string | null;
  name: string | null;
  price: string | null;
  imageUrl?: string | null;
  description?: string | null;
  /** Units in stock (whole number as text or a number); null or absent: not counted. */
  stock?: string | number | null;
}

export interface AppInput {
  appName: string | null;
  title: string | null;
  description: string | null;
  currency: string | null;
  keypadOnly: boolean;
  customAmount: boolean;
  tipPresets: readonly number[];
  customTip: boolean;
  defaultLanguage: string | null;
  items: readonly ItemInput[];
}

export interface CheckedItem {
  code: string;
  name: string;
  price: string;
  imageUrl: string | null;
  description: string | null;
  stock: bigint | null;
}

export interface CheckedApp {
  appName: string;
  title: string;
  description: string | null;
  currency: string;
  keypadOnly: boolean;
  customAmount: boolean;
  tipPresets: number[];
  customTip: boolean;
  defaultLanguage: string | null;
  items: CheckedItem[];
}

export const MAX_ITEMS = 200;
export const MAX_TIP_PRESETS = 6;
const MAX_NAME = 100;
const MAX_DESCRIPTION = 1000;
const MAX_URL = 2000;
const MAX_STOCK = 1_000_000_000n;
const CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Why `text` is not a positive price in `currency` (null when it is one). */
export function priceProblem(text: string, currency: string): string | null {
  if (!/^(0|[1-9][0-9]{0,20})(\.[0-9]{1,8})?$/.test(text)) return 'must be a positive decimal number written with digits and a point, such as 3.50';
  if (/^0(\.0*)?$/.test(text)) return 'must be more than zero';
  const range = amountRangeProblem(text, currency);
  if (range !== null) return range;
  const places = orderMinorUnits(currency);
  const frac = (text.split('.')[1] ?? '').replace(/0+$/, '');
  if (frac.length > places) return places === 0 ? `must be a whole number for ${currency}` : `must have at most ${places} decimal places for ${currency}`;
  return null;
}

/** A price without superfluous zeros ("3.50" → "3.5"). */
export function plainPrice(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** An item code made from a name: lower-case letters and digits joined by dashes ("Flat white" → "flat-white"). */
export function codeOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return slug === '' ? 'item' : slug;
}

function isImageUrl(text: string): boolean {
  if (text.length > MAX_URL || /\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** Checks an app's fields: the checked app, or every problem (field names as in {@link AppInput}; items as `items[i].name`). */
export function checkApp(input: AppInput, hasRate: (code: string) => boolean): { ok: true; app: CheckedApp } | { ok: false; errors: FieldProblem[] } {
  const errors: FieldProblem[] = [];
  const bad = (field: string, message: string) => {
    errors.push({ field, message });
  };
  const title = (input.title ?? '').trim();
  if (title === '') bad('title', 'is required: the name the payer sees, such as "Café Lisboa"');
  else if (title.length > MAX_NAME) bad('title', `must be at most ${MAX_NAME} characters`);
  const appName = (input.appName ?? '').trim() || title;
  if (appName.length > MAX_NAME) bad('appName', `must be at most ${MAX_NAME} characters`);
  const description = (input.description ?? '').trim();
  if (description.length > MAX_DESCRIPTION) bad('description', `must be at most ${MAX_DESCRIPTION} characters`);
  const currency = (input.currency ?? '').trim().toUpperCase();
  const currencyOk = currency === 'BTC' || (isIso4217(currency) && hasRate(currency));
  if (!currencyOk) bad('currency', 'must be BTC or a 3-letter ISO 4217 code with a current exchange rate, such as EUR');
  const presets: number[] = [];
  if (input.tipPresets.length > MAX_TIP_PRESETS) bad('tipPresets', `must be at most ${MAX_TIP_PRESETS} percentages`);
  for (const p of input.tipPresets) {
    if (!Number.isInteger(p) || p < 1 || p > 100) bad('tipPresets', 'must be whole percentages from 1 to 100, such as 5, 10, 15');
    else if (presets.includes(p)) bad('tipPresets', `lists ${p} % twice`);
    else presets.push(p);
  }
  let language: string | null = null;
  if (input.defaultLanguage !== null && input.defaultLanguage.trim() !== '') {
    language = supportedLanguage(input.defaultLanguage.trim());
    if (language === null) bad('defaultLanguage', 'must be one of the languages the pages speak, such as en, de or fr');
  }
  const items: CheckedItem[] = [];
  if (input.keypadOnly && input.items.length > 0) bad('items', 'must be empty for a keypad-only point of sale');
  if (!input.keypadOnly && input.items.length === 0) bad('items', 'are required: at least one item, or choose the keypad-only mode');
  if (input.items.length > MAX_ITEMS) bad('items', `must be at most ${MAX_ITEMS}`);
  const codes = new Set<string>();
  input.items.slice(0, MAX_ITEMS).forEach((item, i) => {
    const at = `items[${i}]`;
    const name = (item.name ?? '').trim();
    if (name === '') bad(`${at}.name`, 'is required');
    else if (name.length > MAX_NAME) bad(`${at}.name`, `must be at most ${MAX_NAME} characters`);
    const priceText = (item.price ?? '').trim();
    let price: string | null = null;
    if (priceText === '') bad(`${at}.price`, 'is required');
    else if (currencyOk) {
      const problem = priceProblem(priceText, currency);
      if (problem !== null) bad(`${at}.price`, problem);
      else price = plainPrice(priceText);
    }
    let code = (item.code ?? '').trim();
    if (code === '') {
      const base = codeOf(name);
      code = base;
      for (let n = 2; codes.has(code); n++) code = `${base}-${n}`;
    } else if (!CODE.test(code)) bad(`${at}.code`, 'must be letters, digits, ".", "_" or "-", at most 64');
    if (codes.has(code)) bad(`${at}.code`, `repeats the item code "${code}"`);
    codes.add(code);
    const imageUrl = (item.imageUrl ?? '').trim();
    if (imageUrl !== '' && !isImageUrl(imageUrl)) bad(`${at}.imageUrl`, 'must be an https:// address of an image');
    const text = (item.description ?? '').trim();
    if (text.length > MAX_DESCRIPTION) bad(`${at}.description`, `must be at most ${MAX_DESCRIPTION} characters`);
    let stock: bigint | null = null;
    const s = item.stock;
    if (s !== null && s !== undefined && s !== '') {
      const str = typeof s === 'number' ? (Number.isSafeInteger(s) ? String(s) : 'x') : s.trim();
      if (!/^(0|[1-9][0-9]{0,9})$/.test(str) || BigInt(str) > MAX_STOCK) bad(`${at}.stock`, 'must be a whole number of units from 0 to 1000000000, or empty when not counted');
      else stock = BigInt(str);
    }
    if (price !== null && name !== '') items.push({ code, name, price, imageUrl: imageUrl === '' ? null : imageUrl, description: text === '' ? null : text, stock });
  });
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    app: { appName, title, description: description === '' ? null : description, currency, keypadOnly: input.keypadOnly, customAmount: input.customAmount, tipPresets: presets, customTip: input.customTip, defaultLanguage: language, items },
  };
}
