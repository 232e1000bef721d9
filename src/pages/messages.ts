// The payer's messages in one language: ICU MessageFormat (intl-messageformat) over the catalogue of
// locales/<tag>.json, read the first time a page in that language is asked for, so a process holds only the
// languages it served and a page carries only its own language's words.
import { readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { DEFAULT_LANGUAGE, PSEUDO_LANGUAGE, languageByTag } from './locales/index.ts';
import { pseudoCatalogue } from './pseudo-locale.ts';
import { fiatForDisplay } from '../money/fiat-display.ts';

/** A catalogue: message key → ICU message. */
export type Catalogue = Readonly<Record<string, string>>;

/** Values a message is filled with. */
export type MessageValues = Record<string, string | number>;

/** The words and number formats of one language. */
export interface Messages {
  lang: string;
  dir: 'ltr' | 'rtl';
  /** The message `key` filled with `values`; an unknown key is a programming error and throws. */
  t(key: string, values?: MessageValues): string;
  /** A fiat amount (plain decimal string) with the locale's separators, padded to the currency's minor units, exact. */
  fiat(amount: string, currency: string): string;
  /** A crypto amount with its exact digits, only the decimal point in the locale's form. */
  crypto(amount: string): string;
  /** The locale's decimal separator. */
  decimal: string;
}

const LOCALES_DIR = new URL('./locales/', import.meta.url);
const catalogues = new Map<string, Catalogue>();
const bundles = new Map<string, Messages>();

/** Reads the catalogue of `tag` (cached); the pseudo-locale is derived from English. */
export function catalogueOf(tag: string): Catalogue {
  let found = catalogues.get(tag);
  if (found) return found;
  found =
    tag === PSEUDO_LANGUAGE
      ? pseudoCatalogue(catalogueOf(DEFAULT_LANGUAGE))
      : (JSON.parse(readFileSync(new URL(`${tag}.json`, LOCALES_DIR), 'utf8')) as Catalogue);
  catalogues.set(tag, found);
  return found;
}

/** The messages of a supported language (or the pseudo-locale); anything else gets English. */
export function messagesFor(tag: string): Messages {
  const known = tag === PSEUDO_LANGUAGE ? { tag, dir: 'ltr' as const } : languageByTag(tag) ?? languageByTag(DEFAULT_LANGUAGE)!;
  const cached = bundles.get(known.tag);
  if (cached) return cached;
  const catalogue = catalogueOf(known.tag);
  // The pseudo-locale formats numbers as English does: it tests the words, not the numbers.
  const locale = known.tag === PSEUDO_LANGUAGE ? DEFAULT_LANGUAGE : known.tag;
  const compiled = new Map<string, IntlMessageFormat>();
  const decimal = new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
  const messages: Messages = {
    lang: known.tag,
    dir: known.dir,
    decimal,
    t(key, values) {
      let format = compiled.get(key);
      if (!format) {
        const source = catalogue[key];
        if (source === undefined) throw new Error(`no message "${key}" in ${known.tag}`);
        format = new IntlMessageFormat(source, locale);
        compiled.set(key, format);
      }
      return String(format.format(values));
    },
    fiat(amount, currency) {
      const padded = fiatForDisplay(amount, currency);
      const m = /^(-?\d+)(?:\.(\d*))?$/.exec(padded);
      if (!m) return padded;
      const digits = (m[2] ?? '').length;
      // A numeric string keeps every digit (Intl.NumberFormat v3): no float ever holds the amount.
      const nf = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
      return nf.format(padded as unknown as number);
    },
    crypto(amount) {
      return /^-?\d+(\.\d+)?$/.test(amount) ? amount.replace('.', decimal) : amount;
    },
  };
  bundles.set(known.tag, messages);
  return messages;
}
