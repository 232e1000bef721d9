// The message machinery the payer pages and the payer's e-mails share: ICU MessageFormat (intl-messageformat) over
// one catalogue, with the locale's number formats. Money keeps its exact digits (no float ever holds an amount).
import { IntlMessageFormat } from 'intl-messageformat';
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

/** Messages of `catalogue` for language `tag` (direction `dir`), numbers formatted for `locale`. */
export function compileMessages(tag: string, dir: 'ltr' | 'rtl', catalogue: Catalogue, locale: string): Messages {
  const compiled = new Map<string, IntlMessageFormat>();
  const decimal = new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.';
  return {
    lang: tag,
    dir,
    decimal,
    t(key, values) {
      let format = compiled.get(key);
      if (!format) {
        const source = catalogue[key];
        if (source === undefined) throw new Error(`no message "${key}" in ${tag}`);
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
}
