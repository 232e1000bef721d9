// The server's price of a charge: exact totals from stored prices, the tip rounded half-up to the currency's minor
// unit, and refusals for what a counter must not charge (sold out, unknown items, typed prices where none is allowed).
import { describe, expect, it } from 'vitest';
import { DomainError } from '../core/domain-errors.ts';
import { percentTip, priceCart, type PricedApp } from './pos-cart.ts';
import { checkApp, type AppInput } from './pos-fields.ts';

const cafe: PricedApp = {
  currency: 'EUR',
  keypadOnly: false,
  customAmount: false,
  tipPresets: [5, 10, 15],
  customTip: true,
  items: [
    { code: 'coffee', name: 'Coffee', price: '3.45', stock: null },
    { code: 'cake', name: 'Cake', price: '4.1', stock: 2n },
    { code: 'bagel', name: 'Bagel', price: '2', stock: 0n },
  ],
};

const refusal = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('not refused');
};

describe('pricing a charge', () => {
  it('adds the lines at the stored prices and a 10 % tip rounded half-up to the cent', () => {
    const cart = priceCart(cafe, { lines: [{ code: 'coffee', quantity: 3 }, { code: 'cake', quantity: 1 }], amount: null, tip: { percent: 10 } });
    // 3 × 3.45 + 4.10 = 14.45; 10 % = 1.445 → 1.45 (half-up); total 15.90.
    expect(cart).toMatchObject({ subtotal: '14.45', tip: '1.45', tipPercent: 10, total: '15.9', currency: 'EUR' });
    expect(cart.lines).toEqual([
      { code: 'coffee', name: 'Coffee', quantity: 3, unitPrice: '3.45', total: '10.35' },
      { code: 'cake', name: 'Cake', quantity: 1, unitPrice: '4.1', total: '4.1' },
    ]);
  });

  it('rounds a percent tip half-up to the minor unit of each currency', () => {
    expect(percentTip('0.05', 10, 'EUR')).toBe('0.01'); // 0.005 → 0.01
    expect(percentTip('0.04', 10, 'EUR')).toBe('0'); // 0.004 → 0.00
    expect(percentTip('1005', 15, 'JPY')).toBe('151'); // 150.75 → 151
    expect(percentTip('1003', 5, 'JPY')).toBe('50'); // 50.15 → 50
    expect(percentTip('0.00012345', 10, 'BTC')).toBe('0.00001235'); // 0.000012345 → 0.00001235
    expect(percentTip('12.34', 100, 'EUR')).toBe('12.34');
  });

  it('takes a typed tip as typed, and a zero tip as none', () => {
    expect(priceCart(cafe, { lines: [{ code: 'coffee', quantity: 1 }], amount: null, tip: { amount: '0.55' } })).toMatchObject({ tip: '0.55', tipPercent: null, total: '4' });
    expect(priceCart(cafe, { lines: [{ code: 'coffee', quantity: 1 }], amount: null, tip: { amount: '0' } })).toMatchObject({ tip: '0', total: '3.45' });
  });

  it('refuses sold out items and more than the stock left, as gone', () => {
    const soldOut = refusal(() => priceCart(cafe, { lines: [{ code: 'bagel', quantity: 1 }], amount: null, tip: null }));
    expect(soldOut.kind).toBe('gone');
    expect(soldOut.message).toContain('Bagel is sold out');
    const tooMany = refusal(() => priceCart(cafe, { lines: [{ code: 'cake', quantity: 3 }], amount: null, tip: null }));
    expect(tooMany.message).toContain('only 2 of Cake left');
  });

  it('refuses unknown items, repeated lines, bad quantities, tips not offered, and a typed amount where none is allowed, all at once', () => {
    const err = refusal(() =>
      priceCart(cafe, {
        lines: [{ code: 'tea', quantity: 1 }, { code: 'coffee', quantity: 0 }, { code: 'cake', quantity: 1 }, { code: 'cake', quantity: 1 }],
        amount: '5',
        tip: { percent: 12 },
      }),
    );
    expect(err.kind).toBe('invalid-fields');
    expect(err.fields?.map((f) => f.field)).toEqual(['lines[0].code', 'lines[1].quantity', 'lines[3].code', 'amount', 'tip']);
  });

  it('charges a typed amount on a keypad-only app, checked like a price', () => {
    const keypad: PricedApp = { ...cafe, keypadOnly: true, items: [] };
    expect(priceCart(keypad, { lines: [], amount: '12.5', tip: { percent: 5 } })).toMatchObject({ customAmount: '12.5', subtotal: '12.5', tip: '0.63', total: '13.13' });
    expect(refusal(() => priceCart(keypad, { lines: [], amount: '12.345', tip: null })).fields).toEqual([{ field: 'amount', message: 'must have at most 2 decimal places for EUR' }]);
    expect(refusal(() => priceCart(keypad, { lines: [], amount: null, tip: null })).fields?.[0]?.field).toBe('amount');
  });
});

describe('checking an app', () => {
  const good: AppInput = {
    appName: null,
    title: 'Café Lisboa',
    description: null,
    currency: 'eur',
    keypadOnly: false,
    customAmount: false,
    tipPresets: [10, 15],
    customTip: true,
    defaultLanguage: 'pt',
    items: [{ name: 'Flat white', price: '3.50', stock: '12' }, { name: 'Flat white', price: '3.80' }],
  };
  const rates = (code: string) => code === 'EUR';

  it('accepts a good app: currency upper-cased, prices without superfluous zeros, codes made from names', () => {
    const checked = checkApp(good, rates);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.app).toMatchObject({ appName: 'Café Lisboa', currency: 'EUR', defaultLanguage: 'pt' });
    expect(checked.app.items.map((i) => [i.code, i.price, i.stock])).toEqual([
      ['flat-white', '3.5', 12n],
      ['flat-white-2', '3.8', null],
    ]);
  });

  it('lists every bad field at once', () => {
    const checked = checkApp(
      { ...good, title: ' ', currency: 'XYZ', tipPresets: [0, 10, 10], defaultLanguage: 'klingon', items: [{ name: '', price: '1,50', imageUrl: 'http://x.test/a.png', stock: -1 }] },
      rates,
    );
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.errors.map((e) => e.field)).toEqual(['title', 'currency', 'tipPresets', 'tipPresets', 'defaultLanguage', 'items[0].name', 'items[0].imageUrl', 'items[0].stock']);
  });

  it('refuses a keypad-only app with items, and an item app without any', () => {
    const a = checkApp({ ...good, keypadOnly: true }, rates);
    const b = checkApp({ ...good, items: [] }, rates);
    expect(a.ok || a.errors.map((e) => e.field)).toEqual(['items']);
    expect(b.ok || b.errors.map((e) => e.field)).toEqual(['items']);
  });
});
