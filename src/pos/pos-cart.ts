// The server's price of a charge: the cart's lines from item codes and quantities at the stored prices (a client's
// prices are never read), the cashier's typed amount where the app allows one, and the tip. A percent tip is the
// subtotal × percent ÷ 100 rounded half-up to the currency's minor unit (2 decimals for EUR, 0 for JPY, 8 for BTC);
// a typed tip is taken as typed, checked like a price. Everything is exact decimal text.
import { DomainError, type FieldProblem } from '../core/domain-errors.ts';
import { addDecimals, compareDecimals, divideDecimals, multiplyDecimals, trimDecimal } from '../money/decimal.ts';
import { orderMinorUnits } from '../money/currencies.ts';
import { amountRangeProblem } from '../money/amount-bounds.ts';
import { plainPrice, priceProblem } from './pos-fields.ts';

/** What the page asks to charge. */
export interface ChargeInput {
  lines: readonly { code: string; quantity: number }[];
  /** The typed amount (keypad, or a custom amount beside the items); null: none. */
  amount: string | null;
  /** A preset tip in whole percent, or a typed tip amount; null: no tip. */
  tip: { percent: number } | { amount: string } | null;
}

/** The app as pricing needs it. */
export interface PricedApp {
  currency: string;
  keypadOnly: boolean;
  customAmount: boolean;
  tipPresets: readonly number[];
  customTip: boolean;
  items: readonly { code: string; name: string; price: string; stock: bigint | null }[];
}

export interface CartLine {
  code: string;
  name: string;
  quantity: number;
  unitPrice: string;
  total: string;
}

/** A priced cart (stored with the charge, shown on the receipt). */
export interface PricedCart {
  currency: string;
  lines: CartLine[];
  /** The typed amount, when there was one. */
  customAmount: string | null;
  subtotal: string;
  /** The preset percent chosen, or null (a typed tip or none). */
  tipPercent: number | null;
  tip: string;
  total: string;
}

export const MAX_QUANTITY = 999;
export const MAX_LINES = 100;

const refused = (errors: FieldProblem[]) => new DomainError('invalid-fields', 'The charge has invalid fields.', errors);

/** The percent tip of `subtotal`: subtotal × percent ÷ 100, rounded half-up to the currency's minor unit. */
export function percentTip(subtotal: string, percent: number, currency: string): string {
  return trimDecimal(divideDecimals(multiplyDecimals(subtotal, String(percent)), '100', orderMinorUnits(currency), 'half-up'));
}

/**
 * Prices a charge, or refuses it (every bad field at once; a sold-out item is `gone`). Stock is only read here:
 * it decrements when the payment is paid.
 */
export function priceCart(app: PricedApp, input: ChargeInput): PricedCart {
  const errors: FieldProblem[] = [];
  const bad = (field: string, message: string) => errors.push({ field, message });
  const byCode = new Map(app.items.map((i) => [i.code, i]));
  const lines: CartLine[] = [];
  const seen = new Set<string>();
  const soldOut: string[] = [];
  if (input.lines.length > MAX_LINES) bad('lines', `must be at most ${MAX_LINES}`);
  if (app.keypadOnly && input.lines.length > 0) bad('lines', 'must be empty: this point of sale has a keypad only');
  input.lines.slice(0, MAX_LINES).forEach((l, i) => {
    const item = byCode.get(l.code);
    if (!item) return bad(`lines[${i}].code`, `is not an item of this point of sale: ${JSON.stringify(l.code)}`);
    if (seen.has(l.code)) return bad(`lines[${i}].code`, 'is listed twice: give one line per item with its quantity');
    seen.add(l.code);
    if (!Number.isInteger(l.quantity) || l.quantity < 1 || l.quantity > MAX_QUANTITY) return bad(`lines[${i}].quantity`, `must be a whole number from 1 to ${MAX_QUANTITY}`);
    if (item.stock !== null && item.stock < BigInt(l.quantity)) soldOut.push(item.stock === 0n ? `${item.name} is sold out` : `only ${item.stock} of ${item.name} left`);
    lines.push({ code: item.code, name: item.name, quantity: l.quantity, unitPrice: item.price, total: trimDecimal(multiplyDecimals(item.price, String(l.quantity))) });
  });
  let custom: string | null = null;
  if (input.amount !== null) {
    if (!app.keypadOnly && !app.customAmount) bad('amount', 'must be left out: this point of sale charges its items only');
    else {
      const problem = priceProblem(input.amount, app.currency);
      if (problem !== null) bad('amount', problem);
      else custom = plainPrice(input.amount);
    }
  }
  if (errors.length === 0 && lines.length === 0 && custom === null) bad(app.keypadOnly ? 'amount' : 'lines', app.keypadOnly ? 'is required: type the amount to charge' : 'are required: add an item to the cart');
  let subtotal = lines.reduce((sum, l) => addDecimals(sum, l.total), '0');
  if (custom !== null) subtotal = addDecimals(subtotal, custom);
  let tip = '0';
  let tipPercent: number | null = null;
  if (input.tip !== null) {
    if ('percent' in input.tip) {
      if (!app.tipPresets.includes(input.tip.percent)) bad('tip', `must be one of the offered tips: ${app.tipPresets.map((p) => `${p} %`).join(', ') || 'none'}`);
      else {
        tipPercent = input.tip.percent;
        tip = percentTip(subtotal, tipPercent, app.currency);
      }
    } else if (!app.customTip) bad('tip', 'must be one of the offered percentages: this point of sale takes no typed tip');
    else {
      const text = input.tip.amount;
      const problem = /^0(\.0*)?$/.test(text) ? null : priceProblem(text, app.currency);
      if (problem !== null) bad('tip', problem);
      else tip = plainPrice(text);
    }
  }
  if (errors.length > 0) throw refused(errors);
  if (soldOut.length > 0) throw new DomainError('gone', `Sold out: ${soldOut.join('; ')}.`, soldOut.map((message) => ({ field: 'lines', message })));
  const total = addDecimals(subtotal, tip);
  const range = amountRangeProblem(total, app.currency);
  if (range !== null || compareDecimals(total, '0') <= 0) throw refused([{ field: 'total', message: range ?? 'must be more than zero' }]);
  return { currency: app.currency, lines, customAmount: custom, subtotal, tipPercent, tip, total };
}
