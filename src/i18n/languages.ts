// The languages the payer pages and e-mails speak: one line each. Adding a language is adding its page catalogue
// (src/pages/locales/<tag>.json, the keys of en.json), its e-mail catalogue (src/i18n/mail/<tag>.json) and its line
// here. The name is the language's own name, as the picker shows it; `dir` sets the document's direction.

/** One supported language. */
export interface Language {
  /** BCP 47 tag, also the catalogue's file name. */
  tag: string;
  /** The language's name in itself. */
  name: string;
  dir: 'ltr' | 'rtl';
}

/** Every language offered to payers, in the picker's order. */
export const LANGUAGES: readonly Language[] = [
  { tag: 'en', name: 'English', dir: 'ltr' },
  { tag: 'es', name: 'Español', dir: 'ltr' },
  { tag: 'pt', name: 'Português', dir: 'ltr' },
  { tag: 'fr', name: 'Français', dir: 'ltr' },
  { tag: 'de', name: 'Deutsch', dir: 'ltr' },
  { tag: 'it', name: 'Italiano', dir: 'ltr' },
  { tag: 'nl', name: 'Nederlands', dir: 'ltr' },
  { tag: 'ro', name: 'Română', dir: 'ltr' },
  { tag: 'el', name: 'Ελληνικά', dir: 'ltr' },
  { tag: 'hu', name: 'Magyar', dir: 'ltr' },
  { tag: 'sv', name: 'Svenska', dir: 'ltr' },
  { tag: 'da', name: 'Dansk', dir: 'ltr' },
  { tag: 'nb', name: 'Norsk bokmål', dir: 'ltr' },
  { tag: 'pl', name: 'Polski', dir: 'ltr' },
  { tag: 'cs', name: 'Čeština', dir: 'ltr' },
  { tag: 'ru', name: 'Русский', dir: 'ltr' },
  { tag: 'uk', name: 'Українська', dir: 'ltr' },
  { tag: 'tr', name: 'Türkçe', dir: 'ltr' },
  { tag: 'ar', name: 'العربية', dir: 'rtl' },
  { tag: 'he', name: 'עברית', dir: 'rtl' },
  { tag: 'fa', name: 'فارسی', dir: 'rtl' },
  { tag: 'hi', name: 'हिन्दी', dir: 'ltr' },
  { tag: 'bn', name: 'বাংলা', dir: 'ltr' },
  { tag: 'th', name: 'ไทย', dir: 'ltr' },
  { tag: 'vi', name: 'Tiếng Việt', dir: 'ltr' },
  { tag: 'id', name: 'Bahasa Indonesia', dir: 'ltr' },
  { tag: 'fil', name: 'Filipino', dir: 'ltr' },
  { tag: 'sw', name: 'Kiswahili', dir: 'ltr' },
  { tag: 'zh-Hans', name: '简体中文', dir: 'ltr' },
  { tag: 'zh-Hant', name: '繁體中文', dir: 'ltr' },
  { tag: 'ja', name: '日本語', dir: 'ltr' },
  { tag: 'ko', name: '한국어', dir: 'ltr' },
];

/** The language every other one is checked against, and the last choice of negotiation. */
export const DEFAULT_LANGUAGE = 'en';

/** The pseudo-locale for tests (every message wrapped and lengthened): never offered, never negotiated. */
export const PSEUDO_LANGUAGE = 'en-XA';

const BY_TAG = new Map(LANGUAGES.map((l) => [l.tag.toLowerCase(), l]));

/** The supported language with this exact tag (case-insensitive), or undefined. */
export function languageByTag(tag: string): Language | undefined {
  return BY_TAG.get(tag.toLowerCase());
}

/**
 * The supported tag a merchant setting names (case-insensitive, `_` taken as `-`), or null. Strict: a setting is
 * one of the offered tags exactly, never negotiated, so what the merchant saves is what payers get.
 */
export function supportedLanguage(tag: string): string | null {
  return languageByTag(tag.trim().replace(/_/g, '-'))?.tag ?? null;
}
