import { describe, expect, it } from 'vitest';
import { languageNamed } from './match.ts';

describe("a merchant's language tag", () => {
  it('names a supported language through its region and script, as BTCPay spells them', () => {
    for (const [tag, want] of [['de-DE', 'de'], ['pt-BR', 'pt'], ['zh-HK', 'zh-Hant'], ['zh-SP', 'zh-Hans'], ['zh-TW', 'zh-Hant'], ['no', 'nb'], ['iw', 'he'], ['fil-PH', 'fil'], ['EN', 'en']] as const) {
      expect(languageNamed(tag), tag).toBe(want);
    }
  });

  it('is refused when it names no offered language: never replaced by English or a neighbour', () => {
    for (const tag of ['tlh', 'xx-YY', 'not a tag', '', 'ca', 'gl', 'ms', 'x'.repeat(40)]) expect(languageNamed(tag), tag).toBeNull();
  });
});
