// The closest supported language to a list of wanted tags, through a real matcher (CLDR distances: de-AT → de,
// zh-HK → zh-Hant). Here, below pages and notify, so Greenfield's `checkout.defaultLanguage` is checked the same way.
import { match } from '@formatjs/intl-localematcher';
import { LANGUAGES } from './languages.ts';

/** The best supported language for `requested` (most wanted first), or null when none is close. */
export function matchLanguage(requested: readonly string[], available: readonly string[] = LANGUAGES.map((l) => l.tag)): string | null {
  const valid = requested.filter(isValidTag);
  if (valid.length === 0) return null;
  // Sentinel default: tells "nothing matched" apart from a match on English.
  const NONE = 'und';
  const found = match(valid, available as string[], NONE, { algorithm: 'best fit' });
  return found === NONE ? null : found;
}

function isValidTag(tag: string): boolean {
  if (tag.length > 35) return false;
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/** Norwegian written as `no` or Nynorsk: the offered Norwegian (bokmål) reads for both. */
const SAME_LANGUAGE: Readonly<Record<string, string>> = { no: 'nb', nn: 'nb' };

/**
 * The supported language a merchant's tag names (Greenfield's `checkout.defaultLanguage`: BTCPay sends codes such as
 * de-DE, pt-BR, zh-SP), or null. Strict where negotiation is lenient: the matcher's last resort (any language → English)
 * and its guesses across languages do not count, so an unsupported language is refused, not silently replaced.
 */
export function languageNamed(tag: string): string | null {
  const found = matchLanguage([tag]);
  if (found === null) return null;
  const asked = new Intl.Locale(tag).language;
  return new Intl.Locale(found).language === (SAME_LANGUAGE[asked] ?? asked) ? found : null;
}
