// Which language a payer page speaks, in the order: `?lang=`, then the payer's choice remembered in the
// cookie (set by the picker), then the merchant's default for the wallet, then Accept-Language through a real
// matcher (CLDR distances: de-AT → de, zh-HK → zh-Hant), then English. Bad tags are skipped, never an error.
import { DEFAULT_LANGUAGE } from './locales/index.ts';
import { matchLanguage } from '../i18n/match.ts';

export { matchLanguage };

/** The cookie the picker sets. */
export const LANGUAGE_COOKIE = 'satgate_lang';

/** What a request says about its language. */
export interface LanguageHints {
  query?: string | undefined;
  cookie?: string | undefined;
  merchantDefault?: string | null | undefined;
  acceptLanguage?: string | undefined;
}

const MAX_HEADER = 1000;

/** The tags of an Accept-Language header by descending q (ties keep their order); "*" and q=0 dropped. */
export function parseAcceptLanguage(header: string): string[] {
  if (header.length > MAX_HEADER) header = header.slice(0, MAX_HEADER);
  const items: Array<{ tag: string; q: number; i: number }> = [];
  header.split(',').forEach((part, i) => {
    const [rawTag, ...params] = part.trim().split(';');
    const tag = (rawTag ?? '').trim();
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    if (tag !== '' && tag !== '*' && q > 0) items.push({ tag, q, i });
  });
  return items.sort((a, b) => b.q - a.q || a.i - b.i).map((x) => x.tag);
}

/** The language of a payer page for these hints. */
export function chooseLanguage(hints: LanguageHints): string {
  for (const explicit of [hints.query, hints.cookie, hints.merchantDefault]) {
    if (typeof explicit === 'string' && explicit !== '') {
      const found = matchLanguage([explicit]);
      if (found) return found;
    }
  }
  if (hints.acceptLanguage) {
    const found = matchLanguage(parseAcceptLanguage(hints.acceptLanguage));
    if (found) return found;
  }
  return DEFAULT_LANGUAGE;
}
