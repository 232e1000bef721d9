// The payer's messages in one language: ICU MessageFormat (intl-messageformat) over the catalogue of
// locales/<tag>.json, read the first time a page in that language is asked for, so a process holds only the
// languages it served and a page carries only its own language's words.
import { readFileSync } from 'node:fs';
import { DEFAULT_LANGUAGE, PSEUDO_LANGUAGE, languageByTag } from './locales/index.ts';
import { pseudoCatalogue } from './pseudo-locale.ts';
import { compileMessages, type Catalogue, type MessageValues, type Messages } from '../i18n/message-format.ts';

export type { Catalogue, MessageValues, Messages };

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
  const messages = compileMessages(known.tag, known.dir, catalogue, locale);
  bundles.set(known.tag, messages);
  return messages;
}
