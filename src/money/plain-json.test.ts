import { describe, expect, it } from 'vitest';
import { plainJson } from './plain-json.ts';
import { exactNumber } from './canonical-json.ts';
import { btcFromSats } from './money.ts';
import { MAX_SATS } from './amount-bounds.ts';

describe('plain JSON numbers', () => {
  it('tiny and huge amounts are written as plain decimals, never in exponent notation', () => {
    const record = {
      crypto_amount: exactNumber(btcFromSats(20n)),
      unconfirmed_crypto_amount: exactNumber(btcFromSats(1n)),
      confirmed_crypto_amount: exactNumber(btcFromSats(99n)),
      cap: exactNumber(btcFromSats(MAX_SATS)),
      huge: 1e21,
      negative: -1.5e-7,
      list: [1e-7, 12.5, 0],
    };
    expect(JSON.stringify(record)).toMatch(/e-/);
    const text = plainJson(record);
    expect(text).toBe(
      '{"crypto_amount":0.0000002,"unconfirmed_crypto_amount":0.00000001,"confirmed_crypto_amount":0.00000099,"cap":21000000,' +
        '"huge":1000000000000000000000,"negative":-0.00000015,"list":[0.0000001,12.5,0]}',
    );
    // The same values: a reader gets back exactly what was written.
    expect(JSON.parse(text)).toEqual(record);
  });

  it('strings that look like exponents are left as they are', () => {
    const value = { txid: '3e5a9e-1', note: 'price "2e-7" BTC \\" 1e9', n: 2e-7 };
    expect(plainJson(value)).toBe('{"txid":"3e5a9e-1","note":"price \\"2e-7\\" BTC \\\\\\" 1e9","n":0.0000002}');
    expect(plainJson({ a: 1, b: 'x' })).toBe('{"a":1,"b":"x"}');
  });
});
