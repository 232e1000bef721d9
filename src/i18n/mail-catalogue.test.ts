// Every e-mail catalogue against English: same keys, messages that parse, no placeholder English lacks, every
// placeholder English has (an e-mail that drops the amount or the link is a broken e-mail, not a shorter one).
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { DEFAULT_LANGUAGE, LANGUAGES } from './languages.ts';
import { mailCatalogueOf, mailLanguage, mailMessagesFor } from './mail-messages.ts';

const files = readdirSync(new URL('./mail/', import.meta.url)).filter((f) => f.endsWith('.json'));
const english = mailCatalogueOf(DEFAULT_LANGUAGE);

function args(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === TYPE.argument || el.type === TYPE.number || el.type === TYPE.date || el.type === TYPE.time) into.add(el.value);
    if (el.type === TYPE.plural || el.type === TYPE.select) {
      into.add(el.value);
      for (const option of Object.values(el.options)) args(option.value, into);
    }
    if (el.type === TYPE.tag) args(el.children, into);
  }
  return into;
}

describe('e-mail catalogues', () => {
  it('exist for exactly the languages of the table', () => {
    expect(files.map((f) => f.slice(0, -'.json'.length)).sort()).toEqual(LANGUAGES.map((l) => l.tag).sort());
  });

  for (const { tag } of LANGUAGES) {
    it(`${tag}: has exactly the English keys, and each message parses with English's placeholders`, () => {
      const catalogue = mailCatalogueOf(tag);
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(english).sort());
      for (const [key, value] of Object.entries(catalogue)) {
        expect(typeof value, key).toBe('string');
        expect(value.trim(), `${tag} ${key} is empty`).not.toBe('');
        let own = new Set<string>();
        expect(() => {
          own = args(parse(value));
        }, `${tag} ${key} parses`).not.toThrow();
        expect([...own].sort(), `${tag} ${key}: placeholders`).toEqual([...args(parse(english[key]!))].sort());
        // A subject is one header line: a line break in it would start another header.
        if (key.endsWith('.subject') || key.endsWith('.subjectShop')) expect(value).not.toMatch(/[\r\n]/);
      }
      if (tag !== DEFAULT_LANGUAGE) {
        // A message of placeholders and signs only (a receipt line such as "{quantity} × {name}: {amount}") has no words to translate.
        const wordless = (text: string) => /^[\s\p{P}\p{S}]*$/u.test(text.replace(/\{\w+\}/g, ''));
        const same = Object.keys(english).filter((k) => catalogue[k] === english[k] && !/\{txid\}$/.test(english[k]!) && !/^Order: /.test(english[k]!) && !wordless(english[k]!));
        expect(same, `${tag}: messages left in English`).toEqual([]);
      }
    });
  }

  it('fill their placeholders, and fall back to English only for a language that is not offered', () => {
    expect(mailMessagesFor('de').t('refundSent.sent', { amount: '0,001 BTC', address: 'bc1qx' })).toBe('Ihre Rückerstattung über 0,001 BTC wurde an bc1qx gesendet.');
    expect(mailMessagesFor('xx').lang).toBe('en');
    expect(mailMessagesFor(null).lang).toBe('en');
    expect(mailLanguage(null, 'fr', 'de')).toBe('fr');
    expect(mailLanguage('klingon', undefined)).toBe('en');
    expect(mailLanguage('ZH-hant')).toBe('zh-Hant');
  });
});
