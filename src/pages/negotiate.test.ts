// The negotiation table of test/vectors/language-negotiation.json: explicit choices first, then Accept-Language.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { chooseLanguage, matchLanguage, parseAcceptLanguage } from './negotiate.ts';

interface Vector { accept_language: string; query?: string; cookie?: string; merchant_default?: string; expected: string }
const file = JSON.parse(readFileSync(new URL('../../test/vectors/language-negotiation.json', import.meta.url), 'utf8')) as {
  vectors: Vector[];
  matcher_available: string[];
  matcher_vectors: Vector[];
};

describe('language negotiation', () => {
  it.each(file.vectors)('picks $expected for Accept-Language "$accept_language" (query $query, cookie $cookie, merchant $merchant_default)', (v) => {
    expect(chooseLanguage({ acceptLanguage: v.accept_language, query: v.query, cookie: v.cookie, merchantDefault: v.merchant_default })).toBe(v.expected);
  });

  it.each(file.matcher_vectors)('matches "$accept_language" to $expected among the full language set', (v) => {
    expect(matchLanguage(parseAcceptLanguage(v.accept_language), file.matcher_available) ?? 'en').toBe(v.expected);
  });

  it('orders Accept-Language by quality, keeping the order of ties, and caps a huge header', () => {
    expect(parseAcceptLanguage('a;q=0.5, b, c;q=0.5, d;q=1')).toEqual(['b', 'd', 'a', 'c']);
    expect(chooseLanguage({ acceptLanguage: `${'x-'.repeat(100000)}de` })).toBe('en');
  });
});
