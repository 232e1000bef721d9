// The payer's e-mails in the payer's language: one catalogue per language in mail/<tag>.json (the keys of en.json),
// read the first time a mail in that language is written. The language is the one recorded when the payer acted
// (the page they acted on was shown in it), else the merchant's default for the wallet, else English.
import { readFileSync } from 'node:fs';
import { DEFAULT_LANGUAGE, languageByTag } from './languages.ts';
import { compileMessages, type Catalogue, type Messages } from './message-format.ts';

const MAIL_DIR = new URL('./mail/', import.meta.url);
const bundles = new Map<string, Messages>();

/** The e-mail catalogue of a supported language (read from disk, not cached: tests and tools). */
export function mailCatalogueOf(tag: string): Catalogue {
  return JSON.parse(readFileSync(new URL(`${tag}.json`, MAIL_DIR), 'utf8')) as Catalogue;
}

/** The first of `choices` that is a supported language, else English. */
export function mailLanguage(...choices: ReadonlyArray<string | null | undefined>): string {
  for (const c of choices) {
    const found = typeof c === 'string' ? languageByTag(c) : undefined;
    if (found) return found.tag;
  }
  return DEFAULT_LANGUAGE;
}

/** The e-mail messages of a supported language; anything else gets English. */
export function mailMessagesFor(tag: string | null | undefined): Messages {
  const known = languageByTag(mailLanguage(tag))!;
  let found = bundles.get(known.tag);
  if (!found) {
    found = compileMessages(known.tag, known.dir, mailCatalogueOf(known.tag), known.tag);
    bundles.set(known.tag, found);
  }
  return found;
}
